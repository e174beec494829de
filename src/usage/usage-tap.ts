import type { Usage, WireFormat } from "../shared/usage.ts";
import { directStream } from "../runtime/direct-stream.ts";
import { createUsageScanner, type UsageTapOptions } from "./usage-scanner.ts";

export type { UsageTapOptions } from "./usage-scanner.ts";

/**
 * How a tapped stream ended:
 * - completed: the source ended, or failed after the terminal event was handed on; the bytes
 *   held back were handed on and the stream closed;
 * - cut: the source failed before the terminal event; everything received had been handed on,
 *   then the stream errors;
 * - stalled: no source read for `stallMs` (the source silent, or the consumer taking nothing);
 *   the source is cancelled and the stream errors;
 * - cancelled: the consumer cancelled; so was the source;
 * - failed: scanning threw (a Renio bug; the error is passed along); the source is cancelled
 *   and the stream errors.
 */
export type TapEnd = "completed" | "cut" | "stalled" | "cancelled" | "failed";

/** An SSE response passed through chunk by chunk, its usage recorded on the way. */
export interface UsageTap {
  /** The stream to hand the client. */
  readonly body: ReadableStream<Uint8Array>;
  /** Usage seen so far (null when none); callable at any time, also after an error or cancel. */
  usage(): Usage | null;
  /** Whether the provider's final usage event was seen (see UsageScanner.usageFinal). */
  usageFinal(): boolean;
  /** performance.now() when the first byte was handed on, null before. */
  firstByteAt(): number | null;
  /**
   * Whether the stream's terminal event (see terminal-event.ts) was handed on: the client was
   * given the whole answer, so a cancel or cut after it ends nothing the client was owed.
   */
  terminalSent(): boolean;
  /** performance.now() of the last source read (the tap's start before the first): stale while the source is silent or the consumer takes nothing. */
  lastReadAt(): number;
}

/** A stream whose first chunk was read already (to know it started before answering the client): the rest comes from `reader`. */
export interface StreamHead {
  readonly reader: ReadableStreamDefaultReader<Uint8Array>;
  /** The first chunk; null when the stream ended without one. */
  readonly first: Uint8Array | null;
}

/** What the consumer sees when the source is cut, or when scanning failed (plain strings: no stack in logs). */
const CUT = "upstream stream cut";
const FAILED = "relay error";
const STALLED = "upstream stream stalled";

/** The reasons a tapped stream ends its consumer with: the call's own log lines say why, so a server's error hook need not. */
export const TAP_END_REASONS: ReadonlySet<unknown> = new Set([CUT, FAILED]);

/** Where the tap hands its bytes: a pull stream's controller, or a direct stream's sink. */
interface TapOutput {
  /** Hands bytes on (a direct sink: written and flushed; the promise resolves once it took them). */
  hand(bytes: Uint8Array): unknown;
  /** Whether one pull reads on after handing bytes on (a direct stream is written in one pull). */
  readonly readsOn: boolean;
  close(): void;
  error(message: string): void;
}

/**
 * Taps `source` (an SSE response body) for usage with createUsageScanner (see there for the
 * events read and the drop rule). Pull-based with no queue of its own (highWaterMark 0): each
 * consumer read takes the next source chunk, scans it synchronously and hands it on (without
 * `dropUsageChunk` the same object), so nothing is allocated or awaited per chunk beyond the
 * source read. `onEnd` runs exactly once, with how the stream ended, when it is decided.
 *
 * With `direct` (the body goes to the runtime's HTTP server, not to a JavaScript reader) and
 * where the runtime has direct streams (Bun), the body is one: each scanned chunk is written
 * into the response and flushed, and the server reads no JavaScript stream per chunk (the bytes
 * are copied into the response, so the chunk objects themselves do not reach a reader). The
 * source is still read one chunk at a time, and the next read waits while the client's connection
 * cannot take more (the write's promise: backpressure), so a slow client makes Renio read slower,
 * never hold more.
 *
 * With `stallMs`, a stream with no source read for that long (the source silent, or the consumer
 * taking nothing) ends as `stalled`: the source is cancelled and the stream errors. The timer is
 * armed once per silence, not per chunk.
 *
 * A cut is delivered after the bytes: when the source fails, every chunk received was already
 * handed on, but the consumer may still hold it unsent (Bun's server writes what it was handed at
 * the end of the turn, and drops it if the body errors first). So the stream errors one
 * macrotask after the failure, in the same pending read; nothing is queued in between, which
 * matters because erroring a stream discards its queue.
 */
export function createUsageTap(
  source: ReadableStream<Uint8Array> | StreamHead,
  format: WireFormat,
  options: UsageTapOptions & { readonly direct?: boolean; readonly stallMs?: number },
  onEnd: (end: TapEnd, error?: unknown) => void,
): UsageTap {
  const scanner = createUsageScanner(format, options);
  const reader = "reader" in source ? source.reader : source.getReader();
  /** A first chunk read before the tap: handed on by the first pull. */
  let head = "reader" in source ? source.first : null;
  let firstByteAt: number | null = null;
  let terminalSent = false;
  let lastReadAt = performance.now();
  let ended = false;
  let stalled = false;
  let watchdog: ReturnType<typeof setTimeout> | undefined;
  const end = (how: TapEnd, error?: unknown) => {
    if (ended) return;
    ended = true;
    clearTimeout(watchdog);
    onEnd(how, error);
  };
  /** Armed once per silence, not per chunk: when it fires early (reads came meanwhile) it waits out the rest. */
  const watch = (ms: number) => {
    const idle = performance.now() - lastReadAt;
    if (idle < ms - 1) return void (watchdog = setTimeout(watch, ms - idle, ms));
    stalled = true;
    end("stalled");
    void reader.cancel().catch(() => {});
  };
  if (options.stallMs !== undefined) watchdog = setTimeout(watch, options.stallMs, options.stallMs);
  /**
   * Reads, scans and hands on until the stream ends, or (a pull stream) until one chunk was
   * handed on. One awaited source read per chunk and nothing else allocated by the tap: the
   * loop runs once per chunk for every open stream, so it stays one function.
   */
  const pump = async (out: TapOutput): Promise<void> => {
    try {
      for (;;) {
        let chunk: Uint8Array | undefined;
        if (head !== null) {
          chunk = head;
          head = null;
        } else {
          let read: Awaited<ReturnType<typeof reader.read>>;
          try {
            read = await reader.read();
          } catch {
            if (stalled) return out.error(STALLED);
            // Cut after the terminal event: the client has every byte it was owed; end it cleanly.
            if (terminalSent) {
              end("completed");
              out.close();
              return;
            }
            end("cut");
            await nextMacrotask();
            out.error(CUT);
            return;
          }
          if (stalled) return out.error(STALLED);
          chunk = read.done ? undefined : read.value;
        }
        lastReadAt = performance.now();
        const bytes = chunk === undefined ? scanner.end() : scanner.push(chunk);
        const handed = bytes.byteLength > 0;
        if (handed) firstByteAt ??= performance.now();
        const taken = handed ? out.hand(bytes) : undefined;
        // The terminal event's bytes are in what was just handed on (never held back once complete).
        if (handed) terminalSent ||= scanner.terminal();
        if (taken !== undefined) await taken;
        if (chunk === undefined) {
          // Ended first: what the end gives back (the connection's idle timeout) must be back before the last byte.
          end("completed");
          out.close();
          return;
        }
        if (handed && !out.readsOn) return;
      }
    } catch (error) {
      // Renio's scan threw: stop the source.
      end("failed", error);
      void reader.cancel().catch(() => {});
      out.error(FAILED);
    }
  };
  const cancel = (reason: unknown) => {
    end("cancelled");
    return reader.cancel(reason);
  };
  const direct = options.direct === true
    ? directStream({
        // A write the client's connection cannot take yet returns a promise: waiting for it is the backpressure (flush never waits).
        pull: (sink) =>
          pump({
            hand: (bytes) => {
              const written = sink.write(bytes);
              sink.flush();
              return written instanceof Promise ? written : undefined;
            },
            readsOn: true,
            close: () => sink.close(),
            error: (message) => sink.close(new Error(message)),
          }),
        cancel,
      })
    : undefined;
  /** The pull stream's output (its controller is the same on every pull). */
  let pulled: TapOutput | undefined;
  const body =
    direct ??
    new ReadableStream<Uint8Array>(
      {
        pull: (stream) => pump((pulled ??= { hand: (bytes) => stream.enqueue(bytes), readsOn: false, close: () => stream.close(), error: (message) => stream.error(message) })),
        cancel,
      },
      { highWaterMark: 0 },
    );
  return { body, usage: scanner.usage, usageFinal: scanner.usageFinal, firstByteAt: () => firstByteAt, terminalSent: () => terminalSent, lastReadAt: () => lastReadAt };
}

function nextMacrotask(): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, 0));
}
