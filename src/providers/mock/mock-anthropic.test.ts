import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { createMock } from "./mock-server.ts";
import { parseSse, postJson } from "../../../test/support/mock-test-support.ts";
import { estimateInputTokens } from "./mock-text.ts";

const mock = createMock({ latencyMs: 0, chunkIntervalMs: 0, chunks: 8 });

function inputTokensOf(body: unknown): number {
  return estimateInputTokens(new TextEncoder().encode(JSON.stringify(body)).byteLength);
}

describe("mock Anthropic messages", () => {
  test("JSON: message with text content and usage", async () => {
    const body = { model: "claude-x", max_tokens: 10, messages: [{ role: "user", content: "Hello" }] };
    const response = await mock.fetch(postJson("/v1/messages", body));
    assert.equal(response.status, 200);
    const message = (await response.json()) as Record<string, unknown>;
    assert.equal(message["type"], "message");
    assert.equal(message["role"], "assistant");
    assert.equal(message["model"], "claude-x");
    assert.match(String(message["id"]), /^msg_/);
    assert.equal(message["stop_reason"], "end_turn");
    const content = message["content"] as Array<{ type: string; text: string }>;
    assert.equal(content[0]?.type, "text");
    assert.equal(content[0]?.text.trim().split(" ").length, 10);
    assert.deepEqual(message["usage"], {
      input_tokens: inputTokensOf(body),
      cache_creation_input_tokens: 0,
      cache_read_input_tokens: 0,
      output_tokens: 10,
    });
  });

  test("stream: full event sequence, input usage in message_start, output in message_delta", async () => {
    const body = { model: "claude-x", max_tokens: 24, stream: true, messages: [{ role: "user", content: "Hello" }] };
    const response = await mock.fetch(postJson("/v1/messages", body));
    assert.equal(response.status, 200);
    assert.match(response.headers.get("content-type") ?? "", /text\/event-stream/);
    const events = parseSse(await response.text());
    assert.deepEqual(events.map((e) => e.event), [
      "message_start",
      "content_block_start",
      "ping",
      ...Array<string>(8).fill("content_block_delta"),
      "content_block_stop",
      "message_delta",
      "message_stop",
    ]);
    const payloads = events.map((e) => JSON.parse(e.data) as Record<string, unknown>);
    assert.deepEqual(payloads.map((p) => p["type"]), events.map((e) => e.event));
    const start = payloads[0]?.["message"] as { usage: Record<string, number>; content: unknown[] };
    assert.equal(start.usage["input_tokens"], inputTokensOf(body));
    assert.deepEqual(start.content, []);
    const text = payloads
      .filter((p) => p["type"] === "content_block_delta")
      .map((p) => (p["delta"] as { type: string; text: string }).text)
      .join("");
    assert.equal(text.trim().split(" ").length, 24);
    const delta = payloads.at(-2) as { delta: { stop_reason: string }; usage: { output_tokens: number } };
    assert.equal(delta.delta.stop_reason, "end_turn");
    assert.equal(delta.usage.output_tokens, 24);
  });

  test("count_tokens returns input_tokens", async () => {
    const body = { model: "claude-x", messages: [{ role: "user", content: "count me please" }] };
    const response = await mock.fetch(postJson("/v1/messages/count_tokens", body));
    assert.equal(response.status, 200);
    assert.deepEqual(await response.json(), { input_tokens: inputTokensOf(body) });
  });

  test("errors on Anthropic routes use the Anthropic envelope", async () => {
    const response = await mock.fetch(postJson("/v1/messages", { max_tokens: 1 }, { "x-mock-fault": "status=529" }));
    assert.equal(response.status, 529);
    assert.deepEqual(await response.json(), {
      type: "error",
      error: { type: "overloaded_error", message: "mock: injected fault (status 529)" },
    });
  });
});
