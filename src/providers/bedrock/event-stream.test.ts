import assert from "node:assert/strict";
import { test } from "node:test";
import { crc32 } from "./crc32.ts";
import { encodeEventMessage, EventStreamDecoder, EventStreamError } from "./event-stream.ts";

const text = new TextEncoder();
const headers = { ":message-type": "event", ":event-type": "contentBlockDelta", ":content-type": "application/json" };
const payloads = ['{"contentBlockIndex":0,"delta":{"text":"Hel"}}', '{"contentBlockIndex":0,"delta":{"text":"lo ✓"}}'];
const frames = payloads.map((p) => encodeEventMessage(headers, text.encode(p)));
const joined = new Uint8Array(frames.reduce((n, f) => n + f.length, 0));
frames.reduce((at, f) => (joined.set(f, at), at + f.length), 0);

function decodeAll(chunks: Uint8Array[]): string[] {
  const decoder = new EventStreamDecoder();
  const out = chunks.flatMap((c) => decoder.push(c)).map((m) => {
    assert.deepEqual(m.headers, headers);
    return new TextDecoder().decode(m.payload);
  });
  decoder.finish();
  return out;
}

test("CRC-32 is the IEEE one (check value of '123456789')", () => {
  assert.equal(crc32(text.encode("123456789")), 0xcbf43926);
});

test("encoded messages decode back to their headers and payloads", () => {
  assert.deepEqual(decodeAll([joined]), payloads);
});

test("messages split at every byte boundary are reassembled exactly", () => {
  for (let cut = 1; cut < joined.length; cut++) {
    assert.deepEqual(decodeAll([joined.subarray(0, cut), joined.subarray(cut)]), payloads, `cut at ${cut}`);
  }
  assert.deepEqual(decodeAll([...joined].map((b) => Uint8Array.of(b))), payloads);
});

test("a flipped payload byte fails the message checksum", () => {
  const bad = frames[0]!.slice();
  bad[bad.length - 10]! ^= 1;
  assert.throws(() => new EventStreamDecoder().push(bad), (e) => e instanceof EventStreamError && /message checksum/.test(e.message));
});

test("a flipped length byte fails the prelude checksum", () => {
  const bad = frames[0]!.slice();
  bad[3]! ^= 1;
  assert.throws(() => new EventStreamDecoder().push(bad), (e) => e instanceof EventStreamError && /prelude checksum/.test(e.message));
});

test("a stream cut mid-message is an error at the end, not a silent loss", () => {
  const decoder = new EventStreamDecoder();
  assert.equal(decoder.push(joined.subarray(0, frames[0]!.length + 5)).length, 1);
  assert.throws(() => decoder.finish(), (e) => e instanceof EventStreamError && /middle of a message/.test(e.message));
});
