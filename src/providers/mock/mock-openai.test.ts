import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { createMock } from "./mock-server.ts";
import { parseSse, postJson, sseJson } from "../../../test/support/mock-test-support.ts";
import { DEFAULT_OUTPUT_TOKENS, estimateInputTokens } from "./mock-text.ts";

const mock = createMock({ latencyMs: 0, chunkIntervalMs: 0, chunks: 8 });

async function json(path: string, body: Record<string, unknown>): Promise<Record<string, unknown>> {
  const response = await mock.fetch(postJson(path, body));
  assert.equal(response.status, 200);
  assert.match(response.headers.get("content-type") ?? "", /application\/json/);
  return (await response.json()) as Record<string, unknown>;
}

async function stream(path: string, body: Record<string, unknown>): Promise<string> {
  const response = await mock.fetch(postJson(path, body));
  assert.equal(response.status, 200);
  assert.match(response.headers.get("content-type") ?? "", /text\/event-stream/);
  return response.text();
}

function inputTokensOf(body: unknown): number {
  return estimateInputTokens(new TextEncoder().encode(JSON.stringify(body)).byteLength);
}

describe("mock OpenAI chat completions", () => {
  test("JSON: chat.completion with usage that follows max_tokens", async () => {
    const body = { model: "gpt-x", messages: [{ role: "user", content: "hello there" }], max_tokens: 12 };
    const result = await json("/v1/chat/completions", body);
    assert.equal(result["object"], "chat.completion");
    assert.match(String(result["id"]), /^chatcmpl-/);
    assert.equal(result["model"], "gpt-x");
    assert.equal(typeof result["created"], "number");
    const choices = result["choices"] as Array<Record<string, unknown>>;
    assert.equal(choices.length, 1);
    assert.equal(choices[0]?.["finish_reason"], "stop");
    const message = choices[0]?.["message"] as Record<string, unknown>;
    assert.equal(message["role"], "assistant");
    assert.equal(String(message["content"]).trim().split(" ").length, 12);
    const usage = result["usage"] as Record<string, unknown>;
    assert.equal(usage["prompt_tokens"], inputTokensOf(body));
    assert.equal(usage["completion_tokens"], 12);
    assert.equal(usage["total_tokens"], inputTokensOf(body) + 12);
    assert.deepEqual(usage["prompt_tokens_details"], { cached_tokens: 0, audio_tokens: 0 });
  });

  test("max_completion_tokens wins, default is 16, cap is 4096", async () => {
    const usage = async (extra: Record<string, unknown>): Promise<number> =>
      ((await json("/v1/chat/completions", { model: "m", messages: [], ...extra }))["usage"] as { completion_tokens: number }).completion_tokens;
    assert.equal(await usage({ max_completion_tokens: 5, max_tokens: 9 }), 5);
    assert.equal(await usage({}), DEFAULT_OUTPUT_TOKENS);
    assert.equal(await usage({ max_tokens: 1_000_000 }), 4096);
  });

  test("stream without include_usage: role chunk, 8 content deltas, finish chunk, [DONE]; no usage", async () => {
    const text = await stream("/v1/chat/completions", { model: "m", messages: [], stream: true, max_tokens: 20 });
    const events = parseSse(text);
    assert.equal(events.at(-1)?.data, "[DONE]");
    assert.ok(text.endsWith("data: [DONE]\n\n"));
    const chunks = sseJson(text);
    assert.ok(chunks.every((c) => c["object"] === "chat.completion.chunk" && !("usage" in c)));
    assert.equal(new Set(chunks.map((c) => c["id"])).size, 1);
    const deltas = chunks.map((c) => (c["choices"] as Array<{ delta: { content?: string; role?: string }; finish_reason: string | null }>)[0]);
    assert.equal(deltas[0]?.delta.role, "assistant");
    const content = deltas.slice(1, -1).map((d) => d?.delta.content ?? "");
    assert.equal(content.length, 8);
    assert.equal(content.join("").trim().split(" ").length, 20);
    assert.equal(deltas.at(-1)?.finish_reason, "stop");
  });

  test("stream with include_usage: final chunk has choices [] and usage", async () => {
    const body = { model: "m", messages: [], stream: true, stream_options: { include_usage: true }, max_tokens: 3 };
    const chunks = sseJson(await stream("/v1/chat/completions", body));
    const last = chunks.at(-1) as { choices: unknown[]; usage: Record<string, number> };
    assert.deepEqual(last.choices, []);
    assert.equal(last.usage["completion_tokens"], 3);
    assert.equal(last.usage["prompt_tokens"], inputTokensOf(body));
    assert.ok(chunks.slice(0, -1).every((c) => c["usage"] === null));
    const content = chunks.slice(1, -2).map((c) => (c["choices"] as Array<{ delta: { content: string } }>)[0]?.delta.content);
    assert.equal(content.length, 3, "fewer tokens than chunks: one delta per token");
  });
});

describe("mock OpenAI completions, embeddings, models", () => {
  test("completions JSON and stream", async () => {
    const result = await json("/v1/completions", { model: "davinci", prompt: "Say", max_tokens: 4 });
    assert.equal(result["object"], "text_completion");
    assert.match(String(result["id"]), /^cmpl-/);
    const choice = (result["choices"] as Array<Record<string, unknown>>)[0];
    assert.equal(String(choice?.["text"]).trim().split(" ").length, 4);
    assert.equal(choice?.["finish_reason"], "stop");
    assert.equal((result["usage"] as Record<string, number>)["completion_tokens"], 4);

    const text = await stream("/v1/completions", { model: "davinci", prompt: "Say", max_tokens: 4, stream: true, stream_options: { include_usage: true } });
    assert.ok(text.endsWith("data: [DONE]\n\n"));
    const chunks = sseJson(text);
    assert.ok(chunks.every((c) => c["object"] === "text_completion"));
    assert.equal((chunks.at(-1)?.["usage"] as Record<string, number>)["completion_tokens"], 4);
    assert.equal((chunks.at(-2)?.["choices"] as Array<Record<string, unknown>>)[0]?.["finish_reason"], "stop");
  });

  test("embeddings: one vector per input, float or base64, usage.prompt_tokens", async () => {
    const body = { model: "emb", input: ["a", "b", "c"], dimensions: 4 };
    const result = await json("/v1/embeddings", body);
    assert.equal(result["object"], "list");
    const data = result["data"] as Array<{ object: string; index: number; embedding: number[] }>;
    assert.deepEqual(data.map((d) => d.index), [0, 1, 2]);
    assert.ok(data.every((d) => d.object === "embedding" && d.embedding.length === 4 && d.embedding.every((x) => typeof x === "number")));
    assert.deepEqual(result["usage"], { prompt_tokens: inputTokensOf(body), total_tokens: inputTokensOf(body) });

    const b64 = await json("/v1/embeddings", { model: "emb", input: "one", encoding_format: "base64" });
    const encoded = (b64["data"] as Array<{ embedding: string }>)[0]?.embedding ?? "";
    const bytes = Uint8Array.from(atob(encoded), (ch) => ch.charCodeAt(0));
    assert.equal(new Float32Array(bytes.buffer).length, 8);
  });

  test("GET /v1/models lists models", async () => {
    const response = await mock.fetch(new Request("http://mock.test/v1/models"));
    assert.equal(response.status, 200);
    const result = (await response.json()) as { object: string; data: Array<{ id: string; object: string }> };
    assert.equal(result.object, "list");
    assert.ok(result.data.length > 0 && result.data.every((m) => m.object === "model" && m.id.length > 0));
  });
});

describe("mock OpenAI Responses API", () => {
  test("JSON: response with output message and usage from max_output_tokens", async () => {
    const body = { model: "gpt-r", input: "hi", max_output_tokens: 7 };
    const result = await json("/v1/responses", body);
    assert.equal(result["object"], "response");
    assert.equal(result["status"], "completed");
    assert.match(String(result["id"]), /^resp_/);
    const output = result["output"] as Array<{ type: string; role: string; content: Array<{ type: string; text: string }> }>;
    assert.equal(output[0]?.type, "message");
    assert.equal(output[0]?.content[0]?.type, "output_text");
    assert.equal(output[0]?.content[0]?.text.trim().split(" ").length, 7);
    const usage = result["usage"] as Record<string, number>;
    assert.equal(usage["input_tokens"], inputTokensOf(body));
    assert.equal(usage["output_tokens"], 7);
    assert.equal(usage["total_tokens"], inputTokensOf(body) + 7);
  });

  test("stream: named events in order, sequence numbers, usage in response.completed", async () => {
    const text = await stream("/v1/responses", { model: "gpt-r", input: "hi", stream: true, max_output_tokens: 16 });
    const events = parseSse(text);
    assert.ok(events.every((e) => e.data !== "[DONE]"));
    const types = events.map((e) => e.event);
    assert.deepEqual(types, [
      "response.created",
      "response.in_progress",
      "response.output_item.added",
      "response.content_part.added",
      ...Array<string>(8).fill("response.output_text.delta"),
      "response.output_text.done",
      "response.content_part.done",
      "response.output_item.done",
      "response.completed",
    ]);
    const payloads = events.map((e) => JSON.parse(e.data) as Record<string, unknown>);
    assert.deepEqual(payloads.map((p) => p["sequence_number"]), payloads.map((_, i) => i));
    assert.deepEqual(payloads.map((p) => p["type"]), types);
    const deltas = payloads.filter((p) => p["type"] === "response.output_text.delta").map((p) => String(p["delta"]));
    const done = payloads.find((p) => p["type"] === "response.output_text.done");
    assert.equal(deltas.join(""), done?.["text"]);
    const completed = payloads.at(-1)?.["response"] as { status: string; usage: Record<string, number> };
    assert.equal(completed.status, "completed");
    assert.equal(completed.usage["output_tokens"], 16);
  });
});
