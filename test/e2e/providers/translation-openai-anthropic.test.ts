import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import OpenAI from "openai";
import { BUILTIN_PRICES } from "../../../src/pricing/prices-builtin.ts";
import { costOf } from "../../../src/pricing/cost.ts";
import { TEST_KEY } from "../../support/relay-harness.ts";
import { finishedEntries } from "../../support/relay-calls.ts";
import { anthropicAnswer, ANTHROPIC_TOOL_ARGS } from "../../support/anthropic-upstream.ts";
import { startAnsweringUpstream, type ScriptedUpstream } from "../../support/scripted-upstream.ts";
import { openRelay, type RelayWithStore } from "../../support/with-relay.ts";

const NORMALIZED = { inputTokens: 71, cachedInputTokens: 100, outputTokens: 7, cacheWrite5mTokens: 30, cacheWrite1hTokens: 20 };
const TOOL_ARGS = ANTHROPIC_TOOL_ARGS;

let upstream: ScriptedUpstream;
let opened: RelayWithStore;
const price = BUILTIN_PRICES["claude-sonnet-4-5"]!;

before(async () => {
  upstream = await startAnsweringUpstream(anthropicAnswer);
  opened = await openRelay(upstream.url, {
    providers: { claude: { type: "anthropic", baseUrl: upstream.url, apiKey: "sk-ant-secret-never-shown" } },
    models: { "claude-sonnet-4-5": { provider: "claude", translate: true }, "claude-direct": { provider: "claude", model: "claude-sonnet-4-5" } },
    budgets: [{ id: "strict", scope: "total", period: "total", limit: 100, mode: "strict" }],
  });
});
after(async () => {
  await opened.stop();
  await upstream.stop();
});

const client = () => new OpenAI({ apiKey: TEST_KEY, baseURL: `${opened.relay.url}/v1`, maxRetries: 0, timeout: 5_000 });

async function journaled(id: string | null) {
  assert.ok(id);
  return (await finishedEntries(opened.store, [id])).get(id)!;
}

describe("OpenAI client → Anthropic provider, translated", () => {
  test("JSON: system, image parts, stop, and the books from Anthropic's usage with cache writes", async () => {
    const { data, response } = await client()
      .chat.completions.create({
        model: "claude-sonnet-4-5",
        messages: [
          { role: "system", content: "Be brief." },
          { role: "user", content: [{ type: "text", text: "What is this?" }, { type: "image_url", image_url: { url: "data:image/png;base64,iVBORw0KGgo=" } }, { type: "image_url", image_url: { url: "https://example.com/cat.png" } }] },
        ],
        max_tokens: 50,
        temperature: 0.5,
        stop: "END",
      })
      .withResponse();
    assert.equal(data.choices[0]!.message.content, "Bonjour");
    assert.equal(data.choices[0]!.finish_reason, "stop");
    assert.equal(data.usage!.prompt_tokens, 171);
    assert.equal(data.usage!.prompt_tokens_details!.cached_tokens, 100);
    const sent = upstream.bodies.at(-1)!;
    assert.deepEqual(sent["system"], [{ type: "text", text: "Be brief." }]);
    assert.equal(sent["max_tokens"], 50);
    assert.deepEqual(sent["stop_sequences"], ["END"]);
    assert.deepEqual((sent["messages"] as Array<{ content: unknown[] }>)[0]!.content.slice(1), [
      { type: "image", source: { type: "base64", media_type: "image/png", data: "iVBORw0KGgo=" } },
      { type: "image", source: { type: "url", url: "https://example.com/cat.png" } },
    ]);
    assert.equal(upstream.headers.at(-1)!.get("x-api-key"), "sk-ant-secret-never-shown");
    const entry = await journaled(response.headers.get("x-request-id"));
    assert.equal(entry.outcome, "ok");
    assert.deepEqual([entry.inputTokens, entry.cachedInputTokens, entry.outputTokens], [NORMALIZED.inputTokens, NORMALIZED.cachedInputTokens, NORMALIZED.outputTokens]);
    assert.equal(entry.cost, costOf(NORMALIZED, price));
    assert.ok(entry.cost! <= entry.reservedCost!, "zero overshoot: the charge is within the reservation");
  });

  test("JSON tools: tool_choice and the tool call's arguments", async () => {
    const data = await client().chat.completions.create({
      model: "claude-sonnet-4-5",
      messages: [{ role: "user", content: "Weather in Paris?" }],
      tools: [{ type: "function", function: { name: "weather", description: "Weather", parameters: { type: "object", properties: { city: { type: "string" } } } } }],
      tool_choice: "required",
    });
    assert.equal(data.choices[0]!.finish_reason, "tool_calls");
    const call = data.choices[0]!.message.tool_calls![0]!;
    assert.equal(call.type === "function" && call.function.name, "weather");
    assert.deepEqual(call.type === "function" && JSON.parse(call.function.arguments), JSON.parse(TOOL_ARGS));
    const sent = upstream.bodies.at(-1)!;
    assert.deepEqual(sent["tool_choice"], { type: "any" });
    assert.equal(typeof sent["max_tokens"], "number", "Anthropic requires max_tokens: the reserved bound is sent");
  });

  test("stream: text deltas, finish reason and usage, even without include_usage", async () => {
    const { data: stream, response } = await client().chat.completions.create({ model: "claude-sonnet-4-5", messages: [{ role: "user", content: "hi" }], max_tokens: 20, stream: true }).withResponse();
    let text = "";
    let finish: string | null = null;
    let usageChunks = 0;
    for await (const chunk of stream) {
      text += chunk.choices[0]?.delta.content ?? "";
      finish = chunk.choices[0]?.finish_reason ?? finish;
      if (chunk.usage) usageChunks++;
    }
    assert.equal(text, "Bonjour");
    assert.equal(finish, "stop");
    assert.equal(usageChunks, 0, "the caller did not ask for usage: the relay drops the usage chunk");
    const entry = await journaled(response.headers.get("x-request-id"));
    assert.equal(entry.outcome, "ok");
    assert.equal(entry.cost, costOf(NORMALIZED, price));
  });

  test("stream tools: argument deltas split across chunks reassemble exactly", async () => {
    const stream = await client().chat.completions.create({
      model: "claude-sonnet-4-5",
      messages: [{ role: "user", content: "Weather?" }],
      tools: [{ type: "function", function: { name: "weather", parameters: { type: "object" } } }],
      stream: true,
      stream_options: { include_usage: true },
    });
    let args = "";
    let name = "";
    let usage: OpenAI.CompletionUsage | undefined;
    for await (const chunk of stream) {
      const call = chunk.choices[0]?.delta.tool_calls?.[0];
      name += call?.function?.name ?? "";
      args += call?.function?.arguments ?? "";
      usage = chunk.usage ?? usage;
    }
    assert.equal(name, "weather");
    assert.equal(args, TOOL_ARGS);
    assert.equal(usage!.completion_tokens, 7);
  });

  test("a provider stream cut mid-event: the client gets an error, the call is journaled as an upstream error charged its reservation", async () => {
    const { data: stream, response } = await client().chat.completions.create({ model: "claude-sonnet-4-5", messages: [{ role: "user", content: "cut me" }], max_tokens: 20, stream: true }).withResponse();
    await assert.rejects(async () => {
      for await (const _ of stream);
    });
    const entry = await journaled(response.headers.get("x-request-id"));
    assert.equal(entry.outcome, "upstream_error");
    assert.equal(entry.cost, entry.reservedCost);
    assert.equal(entry.costEstimated, true);
  });

  test("an Anthropic error arrives in OpenAI's envelope with its status", async () => {
    const error = await client().chat.completions.create({ model: "claude-sonnet-4-5", messages: [{ role: "user", content: "please fail" }] }).catch((e: unknown) => e);
    assert.ok(error instanceof OpenAI.APIError);
    assert.equal(error.status, 429);
    assert.equal((error.error as { type: string }).type, "rate_limit_error");
    assert.match(error.message, /exceeded your rate limit/);
  });

  test("a parameter without an Anthropic equivalent is a 400 naming it, and nothing is sent", async () => {
    const sentBefore = upstream.bodies.length;
    const error = await client().chat.completions.create({ model: "claude-sonnet-4-5", messages: [{ role: "user", content: "hi" }], presence_penalty: 0.5 }).catch((e: unknown) => e);
    assert.ok(error instanceof OpenAI.APIError);
    assert.equal(error.status, 400);
    assert.match(error.message, /`presence_penalty`/);
    assert.equal(upstream.bodies.length, sentBefore);
    const entry = await journaled(error.headers?.get("x-request-id") ?? null);
    assert.equal(entry.status, 400);
    assert.equal(entry.cost, 0, "nothing was sent, nothing is charged");
  });

  test("JSON mode (`response_format: json_object`) has no exact Anthropic equivalent: a 400 naming it, and nothing is sent", async () => {
    const sentBefore = upstream.bodies.length;
    const error = await client().chat.completions.create({ model: "claude-sonnet-4-5", messages: [{ role: "user", content: "JSON please" }], response_format: { type: "json_object" } }).catch((e: unknown) => e);
    assert.ok(error instanceof OpenAI.BadRequestError);
    assert.equal(error.param, "response_format");
    assert.match(error.message, /`response_format` \(json_object\) has no equivalent on Anthropic Messages; use json_schema/);
    assert.equal(upstream.bodies.length, sentBefore);
  });

  test("a call in the provider's own format is not translated: /v1/messages reaches it as sent", async () => {
    const body = { model: "claude-sonnet-4-5", max_tokens: 16, top_k: 3, messages: [{ role: "user", content: [{ type: "text", text: "hi" }] }] };
    const response = await fetch(`${opened.relay.url}/v1/messages`, { method: "POST", headers: { "x-api-key": TEST_KEY, "content-type": "application/json", "anthropic-version": "2023-06-01" }, body: JSON.stringify(body) });
    assert.equal(response.status, 200);
    assert.equal(((await response.json()) as { type: string }).type, "message", "the Anthropic answer, untranslated");
    assert.deepEqual(upstream.bodies.at(-1), body);
  });

  test("without translate: true the model is still refused on the OpenAI route", async () => {
    const error = await client().chat.completions.create({ model: "claude-direct", messages: [{ role: "user", content: "hi" }] }).catch((e: unknown) => e);
    assert.ok(error instanceof OpenAI.APIError);
    assert.equal(error.status, 400);
    assert.match(error.message, /Anthropic-style route/);
  });
});
