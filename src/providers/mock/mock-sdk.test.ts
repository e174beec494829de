import Anthropic from "@anthropic-ai/sdk";
import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import OpenAI from "openai";
import { currentRuntime } from "../../runtime/current-runtime.ts";
import type { Server } from "../../runtime/runtime.ts";
import { mockServerFetch } from "./mock-serve.ts";
import { createMock, type Mock } from "./mock-server.ts";
import { waitFor } from "../../../test/support/mock-test-support.ts";

let mock: Mock;
let server: Server;
let base: string;

before(async () => {
  mock = createMock({ latencyMs: 2, chunkIntervalMs: 1, chunks: 8 });
  const runtime = await currentRuntime();
  server = await runtime.serve({ fetch: mockServerFetch(mock), hostname: "127.0.0.1", port: 0 });
  base = `http://127.0.0.1:${server.port}`;
});

after(async () => {
  await server.stop();
});

function openai(): OpenAI {
  return new OpenAI({ apiKey: "sk-mock", baseURL: `${base}/v1`, maxRetries: 0, timeout: 5_000 });
}

function anthropic(): Anthropic {
  return new Anthropic({ apiKey: "sk-ant-mock", baseURL: base, maxRetries: 0, timeout: 5_000 });
}

describe("official openai SDK against the mock over loopback", () => {
  test("chat completion, non-stream", async () => {
    const completion = await openai().chat.completions.create({
      model: "gpt-mock",
      messages: [{ role: "user", content: "hello" }],
      max_completion_tokens: 9,
    });
    assert.equal(completion.object, "chat.completion");
    assert.equal(completion.model, "gpt-mock");
    assert.equal(completion.choices[0]?.finish_reason, "stop");
    assert.equal(completion.choices[0]?.message.content?.trim().split(" ").length, 9);
    assert.equal(completion.usage?.completion_tokens, 9);
  });

  test("chat completion, stream with include_usage", async () => {
    const stream = await openai().chat.completions.create({
      model: "gpt-mock",
      messages: [{ role: "user", content: "hello" }],
      max_tokens: 12,
      stream: true,
      stream_options: { include_usage: true },
    });
    let text = "";
    let completionTokens = 0;
    for await (const chunk of stream) {
      text += chunk.choices[0]?.delta.content ?? "";
      if (chunk.usage) completionTokens = chunk.usage.completion_tokens;
    }
    assert.equal(text.trim().split(" ").length, 12);
    assert.equal(completionTokens, 12);
  });

  test("chat stream helper accumulates a final completion", async () => {
    const runner = openai().chat.completions.stream({
      model: "gpt-mock",
      messages: [{ role: "user", content: "hello" }],
      max_tokens: 5,
    });
    const final = await runner.finalChatCompletion();
    assert.equal(final.choices[0]?.message.content?.trim().split(" ").length, 5);
    assert.equal(final.choices[0]?.finish_reason, "stop");
  });

  test("responses, non-stream and stream helper", async () => {
    const response = await openai().responses.create({ model: "gpt-mock", input: "hi", max_output_tokens: 6 });
    assert.equal(response.status, "completed");
    assert.equal(response.output_text.trim().split(" ").length, 6);
    assert.equal(response.usage?.output_tokens, 6);

    const stream = openai().responses.stream({ model: "gpt-mock", input: "hi", max_output_tokens: 10 });
    let deltas = "";
    stream.on("response.output_text.delta", (event) => {
      deltas += event.delta;
    });
    const final = await stream.finalResponse();
    assert.equal(final.output_text, deltas);
    assert.equal(final.usage?.output_tokens, 10);
  });

  test("completions and embeddings", async () => {
    const completion = await openai().completions.create({ model: "gpt-mock", prompt: "Say", max_tokens: 3 });
    assert.equal(completion.choices[0]?.text.trim().split(" ").length, 3);
    const embedding = await openai().embeddings.create({ model: "emb-mock", input: ["a", "b"] });
    assert.equal(embedding.data.length, 2);
    assert.ok(embedding.data.every((d) => d.embedding.length === 8 && d.embedding.every(Number.isFinite)));
    assert.ok(embedding.usage.prompt_tokens > 0);
  });

  test("status fault surfaces as an APIError with the status", async () => {
    await assert.rejects(
      openai().chat.completions.create(
        { model: "gpt-mock", messages: [{ role: "user", content: "x" }] },
        { headers: { "x-mock-fault": "status=503" } },
      ),
      (error: unknown) => error instanceof OpenAI.APIError && error.status === 503,
    );
  });
});

describe("official @anthropic-ai/sdk against the mock over loopback", () => {
  test("messages, non-stream", async () => {
    const message = await anthropic().messages.create({
      model: "claude-mock",
      max_tokens: 7,
      messages: [{ role: "user", content: "hello" }],
    });
    assert.equal(message.type, "message");
    assert.equal(message.stop_reason, "end_turn");
    const block = message.content[0];
    assert.equal(block?.type, "text");
    assert.equal(block?.type === "text" ? block.text.trim().split(" ").length : 0, 7);
    assert.equal(message.usage.output_tokens, 7);
    assert.ok(message.usage.input_tokens > 0);
  });

  test("messages, stream helper with final message", async () => {
    const stream = anthropic().messages.stream({
      model: "claude-mock",
      max_tokens: 20,
      messages: [{ role: "user", content: "hello" }],
    });
    let text = "";
    stream.on("text", (delta) => {
      text += delta;
    });
    const final = await stream.finalMessage();
    assert.equal(text.trim().split(" ").length, 20);
    assert.equal(final.usage.output_tokens, 20);
    assert.ok(final.usage.input_tokens > 0);
  });

  test("messages, raw stream events", async () => {
    const stream = await anthropic().messages.create({
      model: "claude-mock",
      max_tokens: 4,
      stream: true,
      messages: [{ role: "user", content: "hello" }],
    });
    const types: string[] = [];
    for await (const event of stream) types.push(event.type);
    assert.equal(types[0], "message_start");
    assert.equal(types.at(-1), "message_stop");
    assert.equal(types.filter((t) => t === "content_block_delta").length, 4);
  });

  test("count_tokens", async () => {
    const count = await anthropic().messages.countTokens({ model: "claude-mock", messages: [{ role: "user", content: "hi" }] });
    assert.ok(count.input_tokens > 0);
  });

  test("overloaded fault surfaces as an APIError with the status", async () => {
    await assert.rejects(
      anthropic().messages.create(
        { model: "claude-mock", max_tokens: 1, messages: [{ role: "user", content: "x" }] },
        { headers: { "x-mock-fault": "status=529" } },
      ),
      (error: unknown) => error instanceof Anthropic.APIError && error.status === 529,
    );
  });
});

describe("mock over a real socket: faults and aborts", () => {
  test("reset drops the connection: fetch fails with a TypeError", async () => {
    await assert.rejects(
      (async () => {
        const response = await fetch(`${base}/v1/chat/completions`, {
          method: "POST",
          body: JSON.stringify({ model: "m", messages: [] }),
          headers: { "x-mock-fault": "reset" },
        });
        await response.text();
      })(),
      TypeError,
    );
  });

  test("cut ends the stream with an error the SDK reports", async () => {
    const stream = await openai().chat.completions.create(
      { model: "m", messages: [{ role: "user", content: "x" }], max_tokens: 16, stream: true },
      { headers: { "x-mock-fault": "cut=3" } },
    );
    let chunks = 0;
    await assert.rejects(async () => {
      for await (const _ of stream) chunks++;
    });
    assert.ok(chunks <= 3, `read ${chunks} chunks`);
  });

  test("client abort mid-stream is observed through request.signal", async () => {
    mock.resetStats();
    const controller = new AbortController();
    const response = await fetch(`${base}/v1/messages`, {
      method: "POST",
      body: JSON.stringify({ model: "c", max_tokens: 400, stream: true }),
      headers: { "x-mock-fault": "slow=20", "x-request-id": "abort-me" },
      signal: controller.signal,
    });
    const reader = (response.body as ReadableStream<Uint8Array>).getReader();
    await reader.read();
    controller.abort();
    await reader.read().catch(() => undefined);
    assert.ok(await waitFor(() => mock.stats().aborted === 1, 3_000), `stats: ${JSON.stringify(mock.stats())}`);
    const stats = await (await fetch(`${base}/_mock/stats`)).json();
    assert.deepEqual(stats, { received: 1, receivedByWire: { openai: 0, anthropic: 1 }, completed: 0, aborted: 1, requestIds: ["abort-me"] });
  });
});
