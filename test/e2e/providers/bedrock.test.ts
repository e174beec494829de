import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import OpenAI from "openai";
import { costOf } from "../../../src/pricing/cost.ts";
import { createPriceBook } from "../../../src/pricing/price-book.ts";
import type { Store } from "../../../src/storage/store.ts";
import { BEDROCK_USAGE, startBedrockUpstream, type BedrockUpstream } from "../../support/bedrock-upstream.ts";
import { PNG_DATA_URL } from "../../support/png-fixture.ts";
import { finishedEntries, openStore } from "../../support/relay-calls.ts";
import { startRelay, TEST_KEY, type RelayUnderTest } from "../../support/relay-harness.ts";

const CREDENTIALS = { accessKeyId: "AKIDBEDROCKTEST01", secretAccessKey: "bedrock-secret-9f8e7d6c5b4a", sessionToken: "session-token-5e6f7a" };
const MODEL_ID = "eu.anthropic.claude-3-5-sonnet-20240620-v1:0";
const PRICE = createPriceBook(new Map()).priceOf(MODEL_ID)!;
const PNG = PNG_DATA_URL;

let upstream: BedrockUpstream;
let relay: RelayUnderTest;
let store: Store;
let client: OpenAI;

before(async () => {
  upstream = await startBedrockUpstream(CREDENTIALS, "eu-central-1");
  relay = await startRelay(upstream.url, {
    providers: { br: { type: "bedrock", awsRegion: "eu-central-1", baseUrl: upstream.url, ...CREDENTIALS, firstByteTimeoutMs: 5000 } },
    models: {
      "claude-eu": { provider: "br", model: MODEL_ID },
      "claude-throttled": { provider: "br", model: "eu.anthropic.claude-3-5-sonnet-throttle-v1:0" },
      "claude-badcrc": { provider: "br", model: "eu.anthropic.claude-3-5-sonnet-badcrc-v1:0" },
    },
    budgets: [{ id: "all", scope: "total", period: "total", limit: 100 }],
  });
  store = await openStore(relay.config.storage);
  client = new OpenAI({ apiKey: TEST_KEY, baseURL: `${relay.url}/v1`, maxRetries: 0, timeout: 10_000 });
});

after(async () => {
  await store.close();
  await relay.stop();
  await upstream.stop();
});

const weatherTool = {
  type: "function" as const,
  function: { name: "get_weather", description: "Weather in a city", parameters: { type: "object", properties: { city: { type: "string" } }, required: ["city"] } },
};

/** The journal entry of a call, once finished, checked against Bedrock's usage and the price. */
async function assertBooked(requestId: string | null): Promise<void> {
  assert.ok(requestId);
  const entry = (await finishedEntries(store, [requestId])).get(requestId)!;
  assert.equal(entry.outcome, "ok");
  const usage = {
    inputTokens: BEDROCK_USAGE.inputTokens + BEDROCK_USAGE.cacheWriteInputTokens,
    cachedInputTokens: BEDROCK_USAGE.cacheReadInputTokens,
    outputTokens: BEDROCK_USAGE.outputTokens,
    cacheWrite5mTokens: BEDROCK_USAGE.cacheWriteInputTokens,
  };
  assert.equal(entry.inputTokens, usage.inputTokens);
  assert.equal(entry.cachedInputTokens, usage.cachedInputTokens);
  assert.equal(entry.outputTokens, usage.outputTokens);
  assert.equal(entry.cost, costOf(usage, PRICE));
}

const last = () => upstream.requests.at(-1)!;

describe("OpenAI client → Renio → Bedrock Converse (JSON)", () => {
  test("plain: system and user translated, signed request, usage and cost booked", async () => {
    const { data, response } = await client.chat.completions.create({
      model: "claude-eu", max_tokens: 50, temperature: 0.2, stop: ["END"],
      messages: [{ role: "system", content: "Be brief." }, { role: "user", content: "Hi" }],
    }).withResponse();
    assert.equal(data.choices[0]!.message.content, "Hello from Bedrock.");
    assert.equal(data.choices[0]!.finish_reason, "stop");
    assert.equal(data.usage!.prompt_tokens, 16);
    assert.equal(data.usage!.prompt_tokens_details!.cached_tokens, 3);
    const seen = last();
    assert.equal(seen.signatureValid, true);
    assert.equal(seen.modelId, MODEL_ID);
    assert.equal(seen.stream, false);
    assert.deepEqual(seen.body["system"], [{ text: "Be brief." }]);
    assert.deepEqual(seen.body["messages"], [{ role: "user", content: [{ text: "Hi" }] }]);
    assert.deepEqual(seen.body["inferenceConfig"], { maxTokens: 50, temperature: 0.2, stopSequences: ["END"] });
    assert.equal(seen.headers.get("authorization")?.includes(TEST_KEY), false);
    await assertBooked(response.headers.get("x-request-id"));
  });

  test("tools: toolSpec and toolChoice sent, toolUse returned as tool_calls, tool results sent back as toolResult", async () => {
    const { data, response } = await client.chat.completions.create({
      model: "claude-eu", max_tokens: 50, tools: [weatherTool], tool_choice: "required",
      messages: [{ role: "user", content: "Weather in Paris?" }],
    }).withResponse();
    const call = data.choices[0]!.message.tool_calls![0]!;
    assert.equal(data.choices[0]!.finish_reason, "tool_calls");
    assert.equal(call.type === "function" && call.function.name, "get_weather");
    assert.deepEqual(call.type === "function" && JSON.parse(call.function.arguments), { city: "Paris" });
    assert.deepEqual(last().body["toolConfig"], {
      tools: [{ toolSpec: { name: "get_weather", description: "Weather in a city", inputSchema: { json: weatherTool.function.parameters } } }],
      toolChoice: { any: {} },
    });
    await assertBooked(response.headers.get("x-request-id"));

    await client.chat.completions.create({
      model: "claude-eu", max_tokens: 50, tools: [weatherTool],
      messages: [
        { role: "user", content: "Weather in Paris?" },
        { role: "assistant", content: null, tool_calls: [{ id: call.id, type: "function", function: { name: "get_weather", arguments: '{"city":"Paris"}' } }] },
        { role: "tool", tool_call_id: call.id, content: "18°C, sunny" },
      ],
    });
    assert.deepEqual(last().body["messages"], [
      { role: "user", content: [{ text: "Weather in Paris?" }] },
      { role: "assistant", content: [{ toolUse: { toolUseId: "tooluse_abc123", name: "get_weather", input: { city: "Paris" } } }] },
      { role: "user", content: [{ toolResult: { toolUseId: "tooluse_abc123", content: [{ text: "18°C, sunny" }] } }] },
    ]);
  });

  test("images: a base64 data URL becomes an image block with its bytes", async () => {
    const data = await client.chat.completions.create({
      model: "claude-eu", max_tokens: 20,
      messages: [{ role: "user", content: [{ type: "text", text: "What is this?" }, { type: "image_url", image_url: { url: PNG } }] }],
    });
    assert.equal(data.choices[0]!.message.content, "I see a png image.");
    assert.deepEqual((last().body["messages"] as { content: unknown[] }[])[0]!.content[1], { image: { format: "png", source: { bytes: PNG.split(",")[1] } } });
  });
});

describe("OpenAI client → Renio → Bedrock ConverseStream (binary event stream, split frames)", () => {
  test("plain: text deltas in order, unknown event skipped, usage chunk, booked", async () => {
    const { data: stream, response } = await client.chat.completions.create({
      model: "claude-eu", max_tokens: 50, stream: true, stream_options: { include_usage: true },
      messages: [{ role: "user", content: "Hi" }],
    }).withResponse();
    let content = "";
    let finish: string | null = null;
    let usage: OpenAI.CompletionUsage | undefined;
    for await (const chunk of stream) {
      content += chunk.choices[0]?.delta.content ?? "";
      finish = chunk.choices[0]?.finish_reason ?? finish;
      usage = chunk.usage ?? usage;
    }
    assert.equal(content, "Hello from Bedrock.");
    assert.equal(finish, "stop");
    assert.equal(usage?.completion_tokens, 7);
    assert.equal(last().stream, true);
    assert.equal(last().signatureValid, true);
    await assertBooked(response.headers.get("x-request-id"));
  });

  test("tools: tool-call argument deltas reassembled exactly", async () => {
    const { data: stream, response } = await client.chat.completions.create({
      model: "claude-eu", max_tokens: 50, stream: true, tools: [weatherTool],
      messages: [{ role: "user", content: "Weather in Paris?" }],
    }).withResponse();
    let args = "";
    let name: string | undefined;
    let finish: string | null = null;
    for await (const chunk of stream) {
      const call = chunk.choices[0]?.delta.tool_calls?.[0];
      name ??= call?.function?.name;
      args += call?.function?.arguments ?? "";
      finish = chunk.choices[0]?.finish_reason ?? finish;
    }
    assert.equal(name, "get_weather");
    assert.equal(args, '{"city":"Paris"}');
    assert.equal(finish, "tool_calls");
    await assertBooked(response.headers.get("x-request-id"));
  });

  test("a frame failing its CRC ends the stream with a clean error", async () => {
    const stream = await client.chat.completions.create({ model: "claude-badcrc", max_tokens: 50, stream: true, messages: [{ role: "user", content: "Hi" }] });
    await assert.rejects(async () => {
      for await (const _chunk of stream) { /* read to the error */ }
    }, (error: Error) => /Bedrock stream is malformed: event stream message checksum mismatch/.test(error.message));
  });
});

describe("errors in the OpenAI envelope", () => {
  test("ThrottlingException is a 429 rate_limit_error naming it", async () => {
    await assert.rejects(
      client.chat.completions.create({ model: "claude-throttled", max_tokens: 5, messages: [{ role: "user", content: "Hi" }] }),
      (error: unknown) => error instanceof OpenAI.APIError && error.status === 429 && /ThrottlingException: Too many requests/.test(error.message),
    );
  });

  test("a parameter with no Converse equivalent is a 400 naming it, never sent upstream", async () => {
    const before = upstream.requests.length;
    await assert.rejects(
      client.chat.completions.create({ model: "claude-eu", max_tokens: 5, logprobs: true, messages: [{ role: "user", content: "Hi" }] }),
      (error: unknown) => error instanceof OpenAI.APIError && error.status === 400 && error.param === "logprobs" && /'logprobs'/.test(error.message),
    );
    assert.equal(upstream.requests.length, before);
  });
});

describe("credentials", () => {
  test("a rejected signature is reported without the upstream's canonical string (session token) or the keys", async () => {
    const wrong = await startRelay(upstream.url, {
      providers: { br: { type: "bedrock", awsRegion: "eu-central-1", baseUrl: upstream.url, ...CREDENTIALS, secretAccessKey: "wrong-secret-0000" } },
      models: { "claude-eu": { provider: "br", model: MODEL_ID } },
    });
    try {
      const response = await fetch(`${wrong.url}/v1/chat/completions`, {
        method: "POST",
        headers: { authorization: `Bearer ${TEST_KEY}`, "content-type": "application/json" },
        body: JSON.stringify({ model: "claude-eu", max_tokens: 5, messages: [{ role: "user", content: "Hi" }] }),
      });
      const text = await response.text();
      assert.equal(response.status, 403);
      assert.equal(last().signatureValid, false);
      assert.match(text, /InvalidSignatureException/);
      for (const secret of Object.values(CREDENTIALS)) assert.ok(!text.includes(secret), "credential in the error");
    } finally {
      await wrong.stop();
    }
  });
});
