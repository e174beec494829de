import { parseSseEvent } from "../usage/sse-event-fields.ts";
import type { AnswerBlock, AnswerRules } from "./answer-rules.ts";
import { readJsonSpans, type JsonNode, type JsonString } from "./json-spans.ts";
import { eventParts } from "./stream-slots.ts";
import { applyReplacements, findMatches, pendingFrom, type Replacement } from "./text-scan.ts";

const EVENT_END = /\r\n\r\n|\n\n|\r\r/;
/** Characters kept before the release point, for the detectors' look-behind. */
const CONTEXT = 32;

/** An event read and not yet handed on. */
interface HeldEvent {
  readonly text: string;
  readonly data: string;
  readonly splices: Replacement[];
  /** Its text pieces not final yet. */
  waiting: number;
}

/** A piece of a channel's text, [start, end) of it, carried by an event's string. */
interface Piece {
  readonly event: HeldEvent;
  readonly node: JsonString;
  readonly start: number;
  readonly end: number;
}

/** One text of the answer as it streams: what is held back of it, and the pieces carrying it. */
interface Channel {
  readonly where: string;
  readonly jsonText: boolean;
  /** The channel's text from `base` on (released context, then held text). */
  text: string;
  base: number;
  /** Up to here the text is final (treated and handed on). */
  released: number;
  pieces: Piece[];
}

/** What one step of the scanner gives: text to hand on, and the block that ends the stream, if any. */
export interface ScanStep {
  readonly out: string;
  readonly blocked?: AnswerBlock;
}

/**
 * A streamed answer's events, held back just long enough to be treated whole. Each event's
 * text deltas join their channel (a choice's content, a tool call's arguments, a content
 * block); in each channel only the tail that could still be (or become) part of a match is held
 * back: the detectors say from where (`pending`), so ordinary prose waits for at most its last
 * word, and nothing waits longer than the longest match a detector allows. Matches are treated
 * when complete; a placeholder or redaction replacing text spread over several events goes
 * into the first of them and the others lose their part. Events leave in their order, each
 * unchanged unless its text was; the end of a channel (a finish reason, a block or item
 * done, the stream's end) releases all of it.
 */
export class StreamScanner {
  private readonly decoder = new TextDecoder();
  private buffered = "";
  private readonly queue: HeldEvent[] = [];
  private readonly channels = new Map<string, Channel>();
  private sequence: number | undefined;

  constructor(
    private readonly rules: AnswerRules,
    private readonly path: string,
  ) {}

  /** The last Responses sequence number seen (for a closing error event). */
  get lastSequence(): number | undefined {
    return this.sequence;
  }

  /** Takes a chunk of the stream's bytes. */
  push(bytes: Uint8Array): ScanStep {
    this.buffered += this.decoder.decode(bytes, { stream: true });
    for (let m = EVENT_END.exec(this.buffered); m !== null; m = EVENT_END.exec(this.buffered)) {
      const text = this.buffered.slice(0, m.index + m[0].length);
      this.buffered = this.buffered.slice(text.length);
      const blocked = this.event(text);
      if (blocked !== undefined) return { out: this.release(), blocked };
    }
    return { out: this.release() };
  }

  /** The stream ended: an unterminated last event is taken, every channel completed, everything handed on. */
  end(): ScanStep {
    this.buffered += this.decoder.decode();
    if (this.buffered.trim() !== "") {
      const blocked = this.event(this.buffered);
      this.buffered = "";
      if (blocked !== undefined) return { out: this.release(), blocked };
    }
    const blocked = this.finish("");
    return { out: this.release(), ...(blocked === undefined ? {} : { blocked }) };
  }

  private event(text: string): AnswerBlock | undefined {
    const { data } = parseSseEvent(text);
    const held: HeldEvent = { text, data, splices: [], waiting: 0 };
    this.queue.push(held);
    let root: JsonNode;
    try {
      if (data === "" || data === "[DONE]") return data === "[DONE]" ? this.finish("") : undefined;
      root = readJsonSpans(data);
    } catch {
      // Not JSON: not an event the guard reads (none of the wire formats sends text outside JSON).
      return undefined;
    }
    const parts = eventParts(this.path, root);
    if (parts.sequence !== undefined) this.sequence = parts.sequence;
    const touched = new Map<string, Channel>();
    for (const slot of parts.slots) {
      let channel = this.channels.get(slot.channel);
      if (channel === undefined) this.channels.set(slot.channel, (channel = { where: slot.where, jsonText: slot.jsonText, text: "", base: 0, released: 0, pieces: [] }));
      const start = channel.base + channel.text.length;
      channel.text += slot.node.value;
      channel.pieces.push({ event: held, node: slot.node, start, end: start + slot.node.value.length });
      held.waiting++;
      touched.set(slot.channel, channel);
    }
    for (const snapshot of parts.snapshots) {
      const treated = this.rules.scanString(snapshot.node.value, snapshot.where, snapshot.jsonText, true);
      if ("policy" in treated) return treated;
      if (treated.client.length > 0) held.splices.push({ start: snapshot.node.start, end: snapshot.node.end, text: JSON.stringify(applyReplacements(snapshot.node.value, treated.client)) });
    }
    for (const prefix of parts.ends) {
      const blocked = this.finish(prefix);
      if (blocked !== undefined) return blocked;
    }
    for (const [key, channel] of touched) {
      // A channel this event ended was completed above.
      if (this.channels.get(key) !== channel) continue;
      const blocked = this.settle(channel, false);
      if (blocked !== undefined) return blocked;
    }
    return undefined;
  }

  /** Completes the channels whose key starts with `prefix`. */
  private finish(prefix: string): AnswerBlock | undefined {
    for (const [key, channel] of this.channels) {
      if (!key.startsWith(prefix)) continue;
      this.channels.delete(key);
      const blocked = this.settle(channel, true);
      if (blocked !== undefined) return blocked;
    }
    return undefined;
  }

  /** Treats and finalizes what of the channel can no longer change (all of it when `final`). */
  private settle(channel: Channel, final: boolean): AnswerBlock | undefined {
    const { base, text } = channel;
    const from = channel.released - base;
    const matches = findMatches(text, this.rules.detectors, from);
    const hold = final ? text.length : Math.max(from, pendingFrom(text, this.rules.detectors));
    // Release at a piece boundary that no match crosses.
    let release = boundaryAtOrBefore(channel, base + hold);
    for (let moved = true; moved; ) {
      moved = false;
      for (const m of matches) {
        if (base + m.start < release && base + m.end > release) {
          release = boundaryAtOrBefore(channel, base + m.start);
          moved = true;
        }
      }
    }
    const replacements: Replacement[] = [];
    for (const m of matches) {
      if (base + m.end > release) break;
      const treated = this.rules.treat(m, text.slice(m.start, m.end), channel.where, channel.jsonText, false);
      if ("policy" in treated) return treated;
      if (treated.client !== undefined) replacements.push({ start: base + m.start, end: base + m.end, text: treated.client });
    }
    let kept = 0;
    for (const piece of channel.pieces) {
      if (piece.end > release) break;
      const final = composePiece(channel, piece, replacements);
      if (final !== piece.node.value) piece.event.splices.push({ start: piece.node.start, end: piece.node.end, text: JSON.stringify(final) });
      piece.event.waiting--;
      kept++;
    }
    channel.pieces = channel.pieces.slice(kept);
    channel.released = release;
    const drop = release - CONTEXT - base;
    if (drop > 0) {
      channel.text = text.slice(drop);
      channel.base = base + drop;
    }
    return undefined;
  }

  /** Hands on the events at the head of the queue that are final. */
  private release(): string {
    let out = "";
    while (this.queue.length > 0 && this.queue[0]!.waiting === 0) out += render(this.queue.shift()!);
    return out;
  }
}

/** The largest end of a held piece at or before `at`, or the channel's release point when none. */
function boundaryAtOrBefore(channel: Channel, at: number): number {
  let boundary = channel.released;
  for (const piece of channel.pieces) {
    if (piece.end > at) break;
    boundary = piece.end;
  }
  return boundary;
}

/** A piece's final text: its characters with the replacements applied (a replacement goes to the piece where it starts). */
function composePiece(channel: Channel, piece: Piece, replacements: readonly Replacement[]): string {
  const original = (from: number, to: number) => channel.text.slice(from - channel.base, to - channel.base);
  let out = "";
  let at = piece.start;
  for (const r of replacements) {
    if (r.end <= piece.start || r.start >= piece.end) continue;
    if (r.start >= piece.start) out += original(at, r.start) + r.text;
    at = Math.max(at, Math.min(r.end, piece.end));
  }
  return out + original(at, piece.end);
}

/** An event's text as handed on: unchanged, or with its data rewritten (one `data:` line). */
function render(event: HeldEvent): string {
  if (event.splices.length === 0) return event.text;
  const data = applyReplacements(event.data, event.splices.sort((a, b) => a.start - b.start));
  const lines: string[] = [];
  let written = false;
  for (const line of event.text.split(/\r\n|\r|\n/)) {
    if (line === "") continue;
    if (line.startsWith("data:")) {
      if (!written) lines.push(`data: ${data}`);
      written = true;
    } else lines.push(line);
  }
  return `${lines.join("\n")}\n\n`;
}
