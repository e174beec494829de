import Anthropic from "@anthropic-ai/sdk";
import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import OpenAI from "openai";
import { TEST_KEY, type RelayUnderTest } from "../../support/relay-harness.ts";
import { startMockRelay } from "../../support/with-relay.ts";

let relay: RelayUnderTest;
let stop: () => Promise<void>;

before(async () => ({ relay, stop } = await startMockRelay()));
after(() => stop());

function openai(): OpenAI {
  return new OpenAI({ apiKey: TEST_KEY, baseURL: `${relay.url}/v1`, maxRetries: 0, timeout: 5_000 });
}

function anthropic(): Anthropic {
  return new Anthropic({ apiKey: TEST_KEY, baseURL: relay.url, maxRetries: 0, timeout: 5_000 });
}

const words = (text: string | null | undefined): number => (text ?? "").trim().split(/\s+/).filter(Boolean).length;

describe("OpenAI routes through the relay, official openai SDK", () => {
  test("chat/completions, JSON", async () => {
    const { data, response } = await openai()
      .chat.completions.create({ model: "mock-gpt", messages: [{ role: "user", content: "hello" }], max_tokens: 9 })
      .withResponse();
    assert.equal(response.status, 200);
    assert.equal(data.object, "chat.completion");
    assert.equal(data.model, "mock-gpt");
    assert.equal(words(data.choices[0]?.message.content), 9);
    assert.equal(data.usage?.completion_tokens, 9);
    assert.ok(response.headers.get("x-request-id"));
  });

  test("chat/completions, stream", async () => {
    const stream = await openai().chat.completions.create({
      model: "mock-gpt",
      messages: [{ role: "user", content: "hello" }],
      max_tokens: 12,
      stream: true,
      stream_options: { include_usage: true },
    });
    let text = "";
    let usageTokens = 0;
    for await (const chunk of stream) {
      text += chunk.choices[0]?.delta.content ?? "";
      if (chunk.usage) usageTokens = chunk.usage.completion_tokens;
    }
    assert.equal(words(text), 12);
    assert.equal(usageTokens, 12);
  });

  test("completions, JSON and stream", async () => {
    const completion = await openai().completions.create({ model: "mock-gpt", prompt: "Say", max_tokens: 5 });
    assert.equal(completion.object, "text_completion");
    assert.equal(words(completion.choices[0]?.text), 5);
    assert.equal(completion.usage?.completion_tokens, 5);

    const stream = await openai().completions.create({ model: "mock-gpt", prompt: "Say", max_tokens: 7, stream: true });
    let text = "";
    for await (const chunk of stream) text += chunk.choices[0]?.text ?? "";
    assert.equal(words(text), 7);
  });

  test("embeddings (float and the SDK's default base64)", async () => {
    const floats = await openai().embeddings.create({ model: "mock-gpt", input: ["a", "b"], encoding_format: "float" });
    assert.equal(floats.data.length, 2);
    assert.ok(floats.data.every((d) => d.embedding.length > 0 && d.embedding.every(Number.isFinite)));
    assert.ok(floats.usage.prompt_tokens > 0);
    const decoded = await openai().embeddings.create({ model: "mock-gpt", input: "a" });
    assert.equal(decoded.data.length, 1);
    assert.ok(decoded.data[0]!.embedding.length > 0 && decoded.data[0]!.embedding.every(Number.isFinite));
  });

  test("responses, JSON and stream", async () => {
    const response = await openai().responses.create({ model: "mock-gpt", input: "hi", max_output_tokens: 6 });
    assert.equal(response.status, "completed");
    assert.equal(words(response.output_text), 6);
    assert.equal(response.usage?.output_tokens, 6);

    const stream = await openai().responses.create({ model: "mock-gpt", input: "hi", max_output_tokens: 10, stream: true });
    let deltas = "";
    let completed: OpenAI.Responses.Response | undefined;
    for await (const event of stream) {
      if (event.type === "response.output_text.delta") deltas += event.delta;
      if (event.type === "response.completed") completed = event.response;
    }
    assert.equal(words(deltas), 10);
    assert.equal(completed?.usage?.output_tokens, 10);
  });

  test("GET /v1/models lists the models of the key, OpenAI shape", async () => {
    const ids: string[] = [];
    for await (const model of openai().models.list()) {
      assert.equal(model.object, "model");
      ids.push(model.id);
    }
    assert.deepEqual(ids.sort(), ["mock-claude", "mock-gpt"]);
  });
});

describe("Anthropic routes through the relay, official @anthropic-ai/sdk", () => {
  test("messages, JSON", async () => {
    const message = await anthropic().messages.create({ model: "mock-claude", max_tokens: 7, messages: [{ role: "user", content: "hello" }] });
    assert.equal(message.type, "message");
    assert.equal(message.model, "mock-claude");
    const block = message.content[0];
    assert.equal(block?.type === "text" ? words(block.text) : -1, 7);
    assert.equal(message.usage.output_tokens, 7);
    assert.ok(message.usage.input_tokens > 0);
  });

  test("messages, stream", async () => {
    const stream = anthropic().messages.stream({ model: "mock-claude", max_tokens: 11, messages: [{ role: "user", content: "hello" }] });
    let text = "";
    stream.on("text", (delta) => {
      text += delta;
    });
    const final = await stream.finalMessage();
    assert.equal(words(text), 11);
    assert.equal(final.usage.output_tokens, 11);
    assert.equal(final.stop_reason, "end_turn");
  });

  test("messages/count_tokens", async () => {
    const count = await anthropic().messages.countTokens({ model: "mock-claude", messages: [{ role: "user", content: "hi there" }] });
    assert.ok(count.input_tokens > 0);
  });

  test("GET /v1/models with anthropic-version: Anthropic shape", async () => {
    const page = await anthropic().models.list();
    assert.deepEqual(page.data.map((m) => m.id).sort(), ["mock-claude", "mock-gpt"]);
    assert.ok(page.data.every((m) => m.type === "model" && typeof m.display_name === "string" && !Number.isNaN(Date.parse(m.created_at))));
    assert.equal(page.has_more, false);
  });

  test("x-api-key authenticates the OpenAI routes too", async () => {
    const response = await fetch(`${relay.url}/v1/chat/completions`, {
      method: "POST",
      headers: { "x-api-key": TEST_KEY, "content-type": "application/json" },
      body: JSON.stringify({ model: "mock-gpt", messages: [{ role: "user", content: "x" }] }),
    });
    assert.equal(response.status, 200);
    assert.equal(((await response.json()) as { object: string }).object, "chat.completion");
  });
});

describe("health endpoints", () => {
  test("/healthz is alive without a key", async () => {
    const response = await fetch(`${relay.url}/healthz`);
    assert.equal(response.status, 200);
    assert.deepEqual(await response.json(), { status: "ok" });
  });

  test("/readyz reports storage reachable and config loaded", async () => {
    const response = await fetch(`${relay.url}/readyz`);
    assert.equal(response.status, 200);
    const body = (await response.json()) as { status: string; storage: string };
    assert.equal(body.status, "ready");
    assert.equal(body.storage, "ok");
  });
});
