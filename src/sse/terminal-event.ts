import type { WireFormat } from "../shared/usage.ts";

const encoder = new TextEncoder();
const CR = 13;
const LF = 10;

/** A first line that marks an event as its stream's last: the whole line, or (`line: false`) its start. */
interface Marker {
  readonly bytes: Uint8Array;
  readonly line: boolean;
}

const line = (text: string): Marker => ({ bytes: encoder.encode(text), line: true });
const start = (text: string): Marker => ({ bytes: encoder.encode(text), line: false });

/** An event named `type`, by its `event:` line or, for data-only streams, a `data:` line whose JSON starts with it. */
const named = (type: string): Marker[] => [line(`event: ${type}`), line(`event:${type}`), start(`data: {"type":"${type}"`), start(`data:{"type":"${type}"`)];

/**
 * The events that end a whole answer, by the caller's wire format: OpenAI chat/completions and
 * completions `data: [DONE]`, the Responses API's `response.completed`, `response.incomplete`
 * and `response.failed` (each carrying the final usage), Anthropic's `message_stop`. An `error`
 * event is not one: the answer it interrupts is not whole (a cut after it stays a cut).
 */
const MARKERS: Readonly<Record<WireFormat, readonly Marker[]>> = {
  openai: [line("data: [DONE]"), line("data:[DONE]"), ...["response.completed", "response.incomplete", "response.failed"].flatMap(named)],
  anthropic: named("message_stop"),
};

/** The shortest marker: shorter events are never terminal. */
const SHORTEST = Math.min(...Object.values(MARKERS).flat().map((marker) => marker.bytes.length));

/**
 * Whether the SSE event in `bytes[from, to)` is its stream's terminal event (see MARKERS): its
 * first line is checked, byte by byte, only as far as it could match one, so a stream's other
 * events cost a few comparisons each.
 */
export function isTerminalEvent(format: WireFormat, bytes: Uint8Array, from: number, to: number): boolean {
  if (to - from < SHORTEST) return false;
  const first = bytes[from];
  for (const marker of MARKERS[format]) {
    const m = marker.bytes;
    if (m[0] !== first || to - from < m.length) continue;
    let i = 1;
    while (i < m.length && bytes[from + i] === m[i]) i++;
    if (i < m.length) continue;
    if (!marker.line) return true;
    const after = bytes[from + m.length];
    if (after === CR || after === LF || from + m.length === to) return true;
  }
  return false;
}
