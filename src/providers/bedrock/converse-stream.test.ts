import assert from "node:assert/strict";
import { test } from "node:test";
import { converseStreamToSse } from "./converse-stream.ts";
import { encodeEventMessage } from "./event-stream.ts";

const text = new TextEncoder();

async function translate(frames: Uint8Array[]): Promise<string> {
  const source = new ReadableStream<Uint8Array>({ start(c) { for (const f of frames) c.enqueue(f); c.close(); } });
  return new Response(source.pipeThrough(converseStreamToSse({ id: "chatcmpl-1", model: "m", includeUsage: false }))).text();
}

const event = (type: string, payload: unknown) =>
  encodeEventMessage({ ":message-type": "event", ":event-type": type, ":content-type": "application/json" }, text.encode(JSON.stringify(payload)));

test("an in-stream Bedrock exception ends the stream with an OpenAI error event and no [DONE]", async () => {
  const out = await translate([
    event("messageStart", { role: "assistant" }),
    encodeEventMessage({ ":message-type": "exception", ":exception-type": "throttlingException", ":content-type": "application/json" }, text.encode('{"message":"slow down"}')),
    event("contentBlockDelta", { contentBlockIndex: 0, delta: { text: "never" } }),
  ]);
  assert.match(out, /"error":\{"message":"Bedrock ThrottlingException: slow down"/);
  assert.doesNotMatch(out, /never|\[DONE\]/);
});

test("without include_usage no usage chunk is sent; a cut final frame is an error", async () => {
  const done = await translate([event("messageStart", {}), event("metadata", { usage: { inputTokens: 1, outputTokens: 1 } })]);
  assert.doesNotMatch(done, /usage/);
  assert.match(done, /data: \[DONE\]\n\n$/);
  const frame = event("messageStop", { stopReason: "end_turn" });
  const cut = await translate([event("messageStart", {}), frame.subarray(0, frame.length - 3)]);
  assert.match(cut, /ended in the middle of a message/);
  assert.doesNotMatch(cut, /\[DONE\]/);
});
