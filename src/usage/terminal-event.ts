import type { WireFormat } from "../shared/usage.ts";

const encoder = new TextEncoder();
const CR = 13;
const LF = 10;
const SPACE = 32;
const QUOTE = 34;
const BRACKET = 91;
const EVENT = encoder.encode("event:");
const DATA = encoder.encode("data:");
const DONE = encoder.encode("[DONE]");
/** A data-only stream's event type, when its JSON starts with it. */
const TYPE = encoder.encode('{"type":"');

/**
 * The events that end a whole answer, by the caller's wire format: the Responses API's
 * `response.completed`, `response.incomplete` and `response.failed` (each carrying the final
 * usage) and OpenAI chat/completions' and completions' `data: [DONE]`; Anthropic's
 * `message_stop`. An `error` event is not one: the answer it interrupts is not whole (a cut
 * after it stays a cut).
 */
const NAMES: Readonly<Record<WireFormat, readonly Uint8Array[]>> = {
  openai: ["response.completed", "response.incomplete", "response.failed"].map((name) => encoder.encode(name)),
  anthropic: [encoder.encode("message_stop")],
};

function startsWith(bytes: Uint8Array, at: number, to: number, prefix: Uint8Array): boolean {
  if (to - at < prefix.length) return false;
  for (let i = 0; i < prefix.length; i++) if (bytes[at + i] !== prefix[i]) return false;
  return true;
}

/** Whether `bytes[at, to)` starts with `value` and the line ends right after it. */
function lineIs(bytes: Uint8Array, at: number, to: number, value: Uint8Array): boolean {
  if (!startsWith(bytes, at, to, value)) return false;
  const after = at + value.length;
  return after === to || bytes[after] === CR || bytes[after] === LF;
}

/**
 * Whether the SSE event in `bytes[from, to)` is its stream's terminal event (see NAMES): its
 * `event:` line names one, or, in a data-only stream, its `data:` is `[DONE]` (OpenAI) or JSON
 * starting with such a `type`. Only the first line is read, byte by byte and only as far as it
 * could match, so a stream's other events cost a few comparisons each.
 */
export function isTerminalEvent(format: WireFormat, bytes: Uint8Array, from: number, to: number): boolean {
  const names = NAMES[format];
  let at = from;
  if (startsWith(bytes, at, to, EVENT)) {
    at += EVENT.length;
    if (bytes[at] === SPACE) at++;
    for (const name of names) if (lineIs(bytes, at, to, name)) return true;
    return false;
  }
  if (!startsWith(bytes, at, to, DATA)) return false;
  at += DATA.length;
  if (bytes[at] === SPACE) at++;
  if (bytes[at] === BRACKET) return format === "openai" && lineIs(bytes, at, to, DONE);
  if (!startsWith(bytes, at, to, TYPE)) return false;
  at += TYPE.length;
  for (const name of names) if (startsWith(bytes, at, to, name) && bytes[at + name.length] === QUOTE) return true;
  return false;
}
