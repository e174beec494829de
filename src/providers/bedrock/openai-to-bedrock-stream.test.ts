import assert from "node:assert/strict";
import { test } from "node:test";
import { converseStreamToSse } from "./openai-to-bedrock-stream.ts";
import { encodeEventMessage } from "./event-stream.ts";

const text = new TextEncoder();

/** The SSE text the frames translate to, and whether the output stream ended in error. */
async function translateAll(frames: Uint8Array[]): Promise<{ text: string; failed: boolean }> {
  const source = new ReadableStream<Uint8Array>({ start(c) { for (const f of frames) c.enqueue(f); c.close(); } });
  const reader = source.pipeThrough(converseStreamToSse({ id: "chatcmpl-1", model: "m", includeUsage: false })).getReader();
  const decoder = new TextDecoder();
  let out = "";
  try {
    for (let read = await reader.read(); !read.done; read = await reader.read()) out += decoder.decode(read.value, { stream: true });
  } catch {
    return { text: out, failed: true };
  }
  return { text: out, failed: false };
}

/** The SSE text of a stream that must end cleanly. */
async function translate(frames: Uint8Array[]): Promise<string> {
  const { text, failed } = await translateAll(frames);
  assert.equal(failed, false, "the stream ended cleanly");
  return text;
}

const event = (type: string, payload: unknown) =>
  encodeEventMessage({ ":message-type": "event", ":event-type": type, ":content-type": "application/json" }, text.encode(JSON.stringify(payload)));

test("an in-stream Bedrock exception sends an OpenAI error event, no [DONE], and the stream then ends in error (a cut for the relay)", async () => {
  const { text: out, failed } = await translateAll([
    event("messageStart", { role: "assistant" }),
    encodeEventMessage({ ":message-type": "exception", ":exception-type": "throttlingException", ":content-type": "application/json" }, text.encode('{"message":"slow down"}')),
    event("contentBlockDelta", { contentBlockIndex: 0, delta: { text: "never" } }),
  ]);
  assert.match(out, /"error":\{"message":"Bedrock ThrottlingException: slow down"/);
  assert.doesNotMatch(out, /never|\[DONE\]/);
  assert.equal(failed, true);
});

test("without include_usage no usage chunk is sent; a cut final frame is an error", async () => {
  const done = await translate([event("messageStart", {}), event("metadata", { usage: { inputTokens: 1, outputTokens: 1 } })]);
  assert.doesNotMatch(done, /usage/);
  assert.match(done, /data: \[DONE\]\n\n$/);
  const frame = event("messageStop", { stopReason: "end_turn" });
  const cut = await translateAll([event("messageStart", {}), frame.subarray(0, frame.length - 3)]);
  assert.match(cut.text, /ended in the middle of a message/);
  assert.doesNotMatch(cut.text, /\[DONE\]/);
  assert.equal(cut.failed, true, "after its error event the cut stream ends in error");
});
