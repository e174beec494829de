import type { Usage, WireFormat } from "../shared/usage.ts";
import { createUsageRecorder } from "./usage-recorder.ts";

/** A pass-through stream over an SSE response that records the usage it carries. */
export interface UsageTap {
  readonly stream: TransformStream<Uint8Array, Uint8Array>;
  /** Usage seen so far (null when none); callable at any time, also after an error or cancel. */
  usage(): Usage | null;
}

/** Options of createUsageTap. */
export interface UsageTapOptions {
  /**
   * Remove the OpenAI usage-only chunk (`"choices":[]` with `usage`) from the output: set when
   * Renio injected `stream_options.include_usage` and the caller did not ask for it.
   * Ignored for the Anthropic format.
   */
  dropUsageChunk: boolean;
}

const LF = 10;
const CR = 13;
const QUOTE = 34;
const COLON = 58;
const SPACE = 32;
const TAB = 9;
const LETTER_N = 110;
/** The bytes of `"usage"`: only events with a `"usage"` key whose value is not null are decoded. */
const NEEDLE = [QUOTE, 117, 115, 97, 103, 101, QUOTE];
/** Matcher states past the needle: key seen, colon seen, non-null value seen. */
const KEY = NEEDLE.length;
const VALUE = KEY + 1;
const FOUND = KEY + 2;

/** Line-ending scanner states. */
const TEXT = 0; // inside a line
const LINE_START = 1; // after LF or CRLF
const AFTER_CR = 2; // after a CR ending a non-empty line (an LF may complete it)
const AFTER_BLANK_CR = 3; // after a CR ending an event (an LF completing it belongs to that event)

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
 * Watches an SSE response as it passes and records its usage:
 * - openai: a chat/completions chunk whose `usage` is a non-null object (`prompt_tokens`,
 *   `prompt_tokens_details.cached_tokens`, `completion_tokens`); a Responses API
 *   `response.completed` / `response.incomplete` / `response.failed` event (`response.usage`).
 * - anthropic: `message_start` (`message.usage`: input, cache read, cache creation counted as
 *   input) then `message_delta` (`usage.output_tokens`, and any updated input counts).
 *
 * Linear in the bytes seen: event boundaries (a blank line after LF, CRLF or CR) and a
 * `"usage"` key with a non-null value are found by one byte scan; only such events are decoded
 * and parsed (`"usage":null`, sent on every OpenAI chunk when usage is requested, is skipped).
 * Only the incomplete trailing event is kept between chunks. Without `dropUsageChunk` every
 * input chunk is forwarded as the same object; with it, the usage-only chunk event is removed,
 * every other byte is forwarded unchanged, and at most the incomplete trailing event is held back.
 */
export function createUsageTap(format: WireFormat, options: UsageTapOptions): UsageTap {
  const recorder = createUsageRecorder(format);
  const drop = options.dropUsageChunk && format === "openai";
  let state = LINE_START;
  /** Matcher state: bytes of NEEDLE matched, KEY, VALUE, or FOUND once the event has a non-null usage. */
  let matched = 0;
  /** Bytes of the current event from earlier chunks (views, not copies). */
  let tail: Uint8Array[] = [];
  /** Whether the last complete event was dropped (its CR terminator may be followed by an LF). */
  let lastDropped = false;

  /** Ends the event made of `tail` + `last`; returns whether it is to be dropped. */
  function endEvent(found: boolean, last: Uint8Array | undefined): boolean {
    let dropped = false;
    if (found) {
      const bytes = last === undefined ? concat(tail) : tail.length === 0 ? last : concat([...tail, last]);
      dropped = recorder.record(bytes) && drop;
    }
    lastDropped = dropped;
    return dropped;
  }

  const stream = new TransformStream<Uint8Array, Uint8Array>({
    transform(chunk, controller) {
      const n = chunk.length;
      let eventStart = 0;
      /** drop mode: first byte of chunk not yet forwarded, and pieces to forward. */
      let outStart = 0;
      let out: Uint8Array[] | undefined;
      let s = state;
      let m = matched;
      for (let i = 0; i < n; i++) {
        const b = chunk[i]!;
        let end = -1;
        if (b === LF) {
          if (s === LINE_START) end = i + 1;
          else if (s === AFTER_BLANK_CR) {
            s = LINE_START;
            eventStart = i + 1;
            if (lastDropped) outStart = i + 1;
            continue;
          } else s = LINE_START;
          if (m !== FOUND) m = 0;
        } else if (b === CR) {
          if (s === TEXT) s = AFTER_CR;
          else (end = i + 1), (s = AFTER_BLANK_CR);
          if (m !== FOUND) m = 0;
        } else {
          s = TEXT;
          if (m < KEY) m = b === NEEDLE[m] ? m + 1 : b === QUOTE ? 1 : 0;
          else if (m === KEY) {
            if (b === COLON) m = VALUE;
            else if (b !== SPACE && b !== TAB) m = b === QUOTE ? 1 : 0;
          } else if (m === VALUE && b !== SPACE && b !== TAB) m = b === LETTER_N ? 0 : FOUND;
          continue;
        }
        if (end === -1) continue;
        // A blank line: the event [eventStart, end) (plus tail) is complete.
        const dropped = endEvent(m === FOUND, m === FOUND ? chunk.subarray(eventStart, end) : undefined);
        m = 0;
        if (drop) {
          if (dropped) {
            if (eventStart > outStart) (out ??= []).push(chunk.subarray(outStart, eventStart));
            outStart = end;
          } else if (tail.length > 0) (out ??= []).push(...tail);
        }
        if (tail.length > 0) tail = [];
        eventStart = end;
      }
      state = s;
      matched = m;
      if (eventStart < n) tail.push(eventStart === 0 ? chunk : chunk.subarray(eventStart));
      if (!drop) {
        controller.enqueue(chunk);
        return;
      }
      if (out === undefined && outStart === 0 && eventStart === n) {
        controller.enqueue(chunk);
        return;
      }
      if (eventStart > outStart) (out ??= []).push(chunk.subarray(outStart, eventStart));
      if (out !== undefined) controller.enqueue(concat(out));
    },
    flush(controller) {
      // An unterminated final event: read it, and forward it unless it is the dropped chunk.
      if (tail.length === 0) return;
      const dropped = endEvent(matched === FOUND, undefined);
      if (drop && !dropped) controller.enqueue(concat(tail));
      tail = [];
      matched = 0;
    },
  });
  return { stream, usage: () => recorder.usage() };
}
