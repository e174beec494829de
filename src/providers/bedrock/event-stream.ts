import { crc32 } from "./crc32.ts";

/**
 * The AWS event-stream binary framing (application/vnd.amazon.eventstream), as ConverseStream
 * sends it. Each message: total length (u32 BE), headers length (u32 BE), prelude CRC32 (of the
 * first 8 bytes), headers, payload, message CRC32 (of everything before it). A header is a name
 * (u8 length + bytes), a type byte and a value; Bedrock sends strings (type 7: u16 length + bytes).
 */
export interface EventMessage {
  readonly headers: Readonly<Record<string, string>>;
  readonly payload: Uint8Array;
}

/** A framing fault: a bad CRC, an impossible length, or a stream that ended mid-message. */
export class EventStreamError extends Error {}

const PRELUDE = 12;
const MAX_MESSAGE = 16 * 1024 * 1024;
const encoder = new TextEncoder();
const decoder = new TextDecoder();
/** Fixed value sizes of the non-string header types (0..9); -1: u16-length-prefixed. */
const VALUE_SIZES = [0, 0, 1, 2, 4, 8, -1, -1, 8, 16];

/** Encodes one message with string headers (the scripted upstream and the tests use this). */
export function encodeEventMessage(headers: Readonly<Record<string, string>>, payload: Uint8Array): Uint8Array<ArrayBuffer> {
  const parts: Uint8Array[] = [];
  for (const [name, value] of Object.entries(headers)) {
    const n = encoder.encode(name);
    const v = encoder.encode(value);
    const part = new Uint8Array(1 + n.length + 3 + v.length);
    part[0] = n.length;
    part.set(n, 1);
    part[1 + n.length] = 7;
    new DataView(part.buffer).setUint16(2 + n.length, v.length);
    part.set(v, 4 + n.length);
    parts.push(part);
  }
  const headersLength = parts.reduce((sum, p) => sum + p.length, 0);
  const total = PRELUDE + headersLength + payload.length + 4;
  const out = new Uint8Array(total);
  const view = new DataView(out.buffer);
  view.setUint32(0, total);
  view.setUint32(4, headersLength);
  view.setUint32(8, crc32(out, 0, 8));
  let at = PRELUDE;
  for (const p of parts) { out.set(p, at); at += p.length; }
  out.set(payload, at);
  view.setUint32(total - 4, crc32(out, 0, total - 4));
  return out;
}

/** Incremental decoder: feed it chunks as they arrive; it returns the complete messages. */
export class EventStreamDecoder {
  private buffer: Uint8Array = new Uint8Array(0);

  push(chunk: Uint8Array): EventMessage[] {
    this.buffer = this.buffer.length === 0 ? chunk : concat(this.buffer, chunk);
    const messages: EventMessage[] = [];
    let offset = 0;
    while (this.buffer.length - offset >= PRELUDE) {
      const view = new DataView(this.buffer.buffer, this.buffer.byteOffset + offset);
      const total = view.getUint32(0);
      const headersLength = view.getUint32(4);
      if (view.getUint32(8) !== crc32(this.buffer, offset, offset + 8)) throw new EventStreamError("event stream prelude checksum mismatch");
      if (total < PRELUDE + 4 + headersLength || total > MAX_MESSAGE) throw new EventStreamError("event stream message length is invalid");
      if (this.buffer.length - offset < total) break;
      if (view.getUint32(total - 4) !== crc32(this.buffer, offset, offset + total - 4)) throw new EventStreamError("event stream message checksum mismatch");
      const headersStart = offset + PRELUDE;
      messages.push({
        headers: decodeHeaders(this.buffer.subarray(headersStart, headersStart + headersLength)),
        payload: this.buffer.slice(headersStart + headersLength, offset + total - 4),
      });
      offset += total;
    }
    this.buffer = this.buffer.subarray(offset);
    return messages;
  }

  /** Call at end of input: a partial message left over is a cut stream. */
  finish(): void {
    if (this.buffer.length > 0) throw new EventStreamError("event stream ended in the middle of a message");
  }
}

function decodeHeaders(bytes: Uint8Array): Record<string, string> {
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  // Collected as pairs and made an object by Object.fromEntries: a `__proto__` name is just a key.
  const headers: [string, string][] = [];
  let at = 0;
  while (at < bytes.length) {
    const nameLength = bytes[at]!;
    const name = decoder.decode(bytes.subarray(at + 1, at + 1 + nameLength));
    at += 1 + nameLength;
    const type = bytes[at++];
    const size = type === undefined ? undefined : VALUE_SIZES[type];
    if (size === undefined || at > bytes.length) throw new EventStreamError("event stream header is malformed");
    if (size >= 0) { at += size; continue; }
    const length = view.getUint16(at);
    if (type === 7) headers.push([name, decoder.decode(bytes.subarray(at + 2, at + 2 + length))]);
    at += 2 + length;
  }
  if (at !== bytes.length) throw new EventStreamError("event stream header is malformed");
  return Object.fromEntries(headers);
}

function concat(a: Uint8Array, b: Uint8Array): Uint8Array {
  const out = new Uint8Array(a.length + b.length);
  out.set(a);
  out.set(b, a.length);
  return out;
}
