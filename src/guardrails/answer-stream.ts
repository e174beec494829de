import { answerBlockedMessage, type AnswerBlock } from "./answer-rules.ts";
import type { StreamScanner } from "./stream-scanner.ts";
import { blockedEvent } from "./stream-error-event.ts";

const encoder = new TextEncoder();

/** A streamed answer passed through a call's guard. */
export interface GuardedStream {
  /** What the client reads. */
  readonly body: ReadableStream<Uint8Array>;
  /** performance.now() when the first byte was handed to the client, null before. */
  firstByteAt(): number | null;
  /** Resolves once the guard is done with the stream: ended, cut, cancelled or blocked (then everything it found is recorded). */
  readonly done: Promise<void>;
}

/**
 * Wraps `source` (the usage tap's body: the provider's stream as the caller's wire format, usage
 * already read) with `scanner`. Pull-based with no queue of its own: each read takes source
 * chunks until the scanner hands something on. A block hands on what was final before the match,
 * then the wire format's error event, and closes the client's stream; the source is then read
 * to its end without being passed on, so the provider's usage is still read and the call settled.
 * A cut source cuts the client's stream (text still held back is dropped, not released untreated).
 */
export function guardStream(source: ReadableStream<Uint8Array>, scanner: StreamScanner, path: string, onBlock: (block: AnswerBlock) => void): GuardedStream {
  const reader = source.getReader();
  let firstByteAt: number | null = null;
  let finished!: () => void;
  const done = new Promise<void>((resolve) => (finished = resolve));
  const drain = async () => {
    try {
      while (!(await reader.read()).done);
    } catch {
      // The source failing after the block changes nothing the client sees.
    }
  };
  const body = new ReadableStream<Uint8Array>(
    {
      async pull(controller) {
        for (;;) {
          let read: Awaited<ReturnType<typeof reader.read>>;
          try {
            read = await reader.read();
          } catch (reason) {
            // The upstream was cut: so is the client's stream (what is held back is dropped).
            finished();
            controller.error(reason);
            return;
          }
          let step: ReturnType<StreamScanner["end"]>;
          try {
            step = read.done ? scanner.end() : scanner.push(read.value);
          } catch {
            // Renio's own failure: nothing more is handed on untreated.
            finished();
            void reader.cancel().catch(() => {});
            controller.error("relay error");
            return;
          }
          if (step.out !== "") {
            firstByteAt ??= performance.now();
            controller.enqueue(encoder.encode(step.out));
          }
          if (step.blocked !== undefined) {
            onBlock(step.blocked);
            controller.enqueue(encoder.encode(blockedEvent(path, answerBlockedMessage(step.blocked), scanner.lastSequence)));
            controller.close();
            finished();
            void drain();
            return;
          }
          if (read.done) {
            controller.close();
            finished();
            return;
          }
          if (step.out !== "") return;
        }
      },
      cancel(reason) {
        finished();
        return reader.cancel(reason);
      },
    },
    { highWaterMark: 0 },
  );
  return { body, firstByteAt: () => firstByteAt, done };
}
