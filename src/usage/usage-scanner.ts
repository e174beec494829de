import type { Usage, WireFormat } from "../shared/usage.ts";
import { isTerminalEvent } from "./terminal-event.ts";
import { findUsageValue } from "./usage-key-scan.ts";
import { createUsageRecorder } from "./usage-recorder.ts";

/** Options of createUsageScanner and createUsageTap. */
export interface UsageTapOptions {
  /**
   * Remove the OpenAI usage-only chunk (`"choices":[]` with `usage`) from the output: set when
   * Renio injected `stream_options.include_usage` and the caller did not ask for it.
   * Ignored for the Anthropic format.
   */
  dropUsageChunk: boolean;
}

/** Synchronous usage scanning of one SSE response, chunk by chunk. */
export interface UsageScanner {
  /**
   * Scans one upstream chunk and returns what to forward now: the same `chunk` object whenever
   * nothing is held back or dropped (always without `dropUsageChunk`, never copied); otherwise a
   * new array, or a zero-length array when nothing is to be forwarded yet. A zero-length result
   * that is not `chunk` itself need not be forwarded.
   */
  push(chunk: Uint8Array): Uint8Array;
  /**
   * At the clean end of the upstream: reads an unterminated final event and returns the bytes
   * still held back (zero-length when none). Call once, after the last `push`.
   */
  end(): Uint8Array;
  /** Usage seen so far (null when none); callable at any time, also after an error or cancel. */
  usage(): Usage | null;
  /**
   * Whether the provider's final usage event was seen (see UsageRecorder.final). A stream cut
   * before it has only a lower bound in `usage()`.
   */
  usageFinal(): boolean;
  /**
   * Whether the stream's terminal event (`data: [DONE]`, `response.completed`, `message_stop`,
   * … see terminal-event.ts) has been completed by the chunks pushed so far: its bytes are in
   * what `push` returned.
   */
  terminal(): boolean;
}

const LF = 10;
const CR = 13;

/** Line-ending scanner states. */
const TEXT = 0; // inside a line
const LINE_START = 1; // after LF or CRLF
const AFTER_CR = 2; // after a CR ending a non-empty line (an LF may complete it)
const AFTER_BLANK_CR = 3; // after a CR ending an event (an LF completing it belongs to that event)

const EMPTY = new Uint8Array(0);

/**
 * Events at most this long are checked for the terminal event; longer ones only when they carry
 * usage. The terminal events are short (`data: [DONE]`, `message_stop`) or carry the final usage
 * (`response.completed`), so a stream's content events cost one comparison each.
 */
const SHORT_EVENT = 96;

function concat(parts: readonly Uint8Array[]): Uint8Array {
  if (parts.length === 1) return parts[0]!;
  let length = 0;
  for (const part of parts) length += part.length;
  const out = new Uint8Array(length);
  let offset = 0;
  for (const part of parts) out.set(part, offset), (offset += part.length);
  return out;
}

/**
 * Creates a scanner that records the usage of an SSE response as its chunks pass:
 * - openai: a chat/completions chunk whose `usage` is a non-null object (`prompt_tokens`,
 *   `prompt_tokens_details.cached_tokens`, `completion_tokens`); a Responses API
 *   `response.completed` / `response.incomplete` / `response.failed` event (`response.usage`).
 * - anthropic: `message_start` (`message.usage`: input, cache read, cache creation counted as
 *   input) then `message_delta` (`usage.output_tokens`, and any updated input counts).
 *
 * Linear in the bytes seen: event boundaries (a blank line after LF, CRLF or CR) and `"usage"`
 * keys with a non-null value are found by forward-only byte searches (native `indexOf` when the
 * chunk has no CR); only events holding such a key are decoded and parsed. Only the incomplete
 * trailing event is kept between chunks (as views, not copies). With `dropUsageChunk` (openai),
 * the usage-only chunk event is removed, every other byte is forwarded unchanged, and at most the
 * incomplete trailing event is held back; a chunk that completes a held-back event is forwarded
 * as one new array (held bytes + its own).
 */
export function createUsageScanner(format: WireFormat, options: UsageTapOptions): UsageScanner {
  const recorder = createUsageRecorder(format);
  const drop = options.dropUsageChunk && format === "openai";
  let state = LINE_START;
  /** Bytes of the current event from earlier chunks (views, not copies). */
  let tail: Uint8Array[] = [];
  /** Whether the last complete event was dropped (its CR terminator may be followed by an LF). */
  let lastDropped = false;
  /** Whether the terminal event was completed. */
  let terminal = false;

  // Per-chunk scan state.
  let chunk: Uint8Array = EMPTY;
  /** Where the current event starts in `chunk`. */
  let eventStart = 0;
  /** Start of the next usage value found in `chunk` (chunk.length when none), -1 before searching. */
  let hit = -1;
  /** drop mode: first byte of `chunk` not yet forwarded, and the pieces to forward. */
  let outStart = 0;
  let out: Uint8Array[] | undefined;

  /** Reads an event's bytes if they hold a usage value; returns whether to drop the event. */
  function read(bytes: Uint8Array, found: boolean): boolean {
    const dropped = found && recorder.record(bytes) && drop;
    lastDropped = dropped;
    return dropped;
  }

  /** The event made of `tail` + chunk[eventStart, end) is complete. */
  function complete(end: number): void {
    let dropped: boolean;
    if (tail.length === 0) {
      // Searches only move forward through the chunk: linear however many events it holds.
      if (hit < eventStart) hit = findUsageValue(chunk, eventStart);
      const found = hit < end;
      dropped = found && read(chunk.subarray(eventStart, end), true);
      if (!dropped) lastDropped = false;
      if (!terminal && (found || end - eventStart <= SHORT_EVENT)) terminal = isTerminalEvent(format, chunk, eventStart, end);
    } else {
      tail.push(chunk.subarray(eventStart, end));
      const bytes = concat(tail);
      tail.pop();
      const found = findUsageValue(bytes, 0) < bytes.length;
      dropped = read(bytes, found);
      if (!terminal && (found || bytes.length <= SHORT_EVENT)) terminal = isTerminalEvent(format, bytes, 0, bytes.length);
    }
    if (drop) {
      if (dropped) {
        if (eventStart > outStart) (out ??= []).push(chunk.subarray(outStart, eventStart));
        outStart = end;
      } else if (tail.length > 0) (out ??= []).push(...tail);
    }
    if (tail.length > 0) tail = [];
    eventStart = end;
  }

  /** Any line endings: a byte-by-byte state machine. */
  function scanBytes(): void {
    const n = chunk.length;
    let s = state;
    for (let i = 0; i < n; i++) {
      const b = chunk[i];
      if (b === LF) {
        if (s === LINE_START) complete(i + 1);
        else if (s === AFTER_BLANK_CR) {
          // The LF of a CRLF that ended the previous event belongs to it.
          eventStart = i + 1;
          if (lastDropped) outStart = i + 1;
        }
        s = LINE_START;
      } else if (b === CR) {
        if (s === TEXT) s = AFTER_CR;
        else complete(i + 1), (s = AFTER_BLANK_CR);
      } else s = TEXT;
    }
    state = s;
  }

  /** LF line endings only (no CR in the chunk, none pending): native LF search. */
  function scanLf(): void {
    const n = chunk.length;
    for (let j = chunk.indexOf(LF); j !== -1; j = chunk.indexOf(LF, j + 1)) {
      if (j > 0 ? chunk[j - 1] === LF : state === LINE_START) complete(j + 1);
    }
    if (n > 0) state = chunk[n - 1] === LF ? LINE_START : TEXT;
  }

  function push(input: Uint8Array): Uint8Array {
    chunk = input;
    eventStart = 0;
    hit = -1;
    outStart = 0;
    out = undefined;
    if ((state === TEXT || state === LINE_START) && input.indexOf(CR) === -1) scanLf();
    else scanBytes();
    const n = input.length;
    if (eventStart < n) tail.push(eventStart === 0 ? input : input.subarray(eventStart));
    let result = input;
    if (drop && (out !== undefined || outStart !== 0 || eventStart !== n)) {
      if (eventStart > outStart) (out ??= []).push(input.subarray(outStart, eventStart));
      result = out === undefined ? EMPTY : concat(out);
    }
    chunk = EMPTY;
    out = undefined;
    return result;
  }

  function end(): Uint8Array {
    // An unterminated final event: read it, and forward it unless it is the dropped chunk.
    if (tail.length === 0) return EMPTY;
    const bytes = concat(tail);
    tail = [];
    const found = findUsageValue(bytes, 0) < bytes.length;
    const dropped = read(bytes, found);
    if (!terminal && (found || bytes.length <= SHORT_EVENT)) terminal = isTerminalEvent(format, bytes, 0, bytes.length);
    return drop && !dropped ? bytes : EMPTY;
  }

  return { push, end, usage: () => recorder.usage(), usageFinal: () => recorder.final(), terminal: () => terminal };
}
