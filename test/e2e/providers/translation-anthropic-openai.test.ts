import Anthropic from "@anthropic-ai/sdk";
import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import { BUILTIN_PRICES } from "../../../src/pricing/prices-builtin.ts";
import { costOf } from "../../../src/pricing/cost.ts";
import { TEST_KEY } from "../../support/relay-harness.ts";
import { finishedEntries } from "../../support/relay-calls.ts";
import { openAiAnswer, OPENAI_TOOL_ARGS } from "../../support/openai-upstream.ts";
import { startAnsweringUpstream, type ScriptedUpstream } from "../../support/scripted-upstream.ts";
import { openRelay, type RelayWithStore } from "../../support/with-relay.ts";

const NORMALIZED = { inputTokens: 80, cachedInputTokens: 40, outputTokens: 9 };
const TOOL_ARGS = OPENAI_TOOL_ARGS;

let upstream: ScriptedUpstream;
let opened: RelayWithStore;
const price = BUILTIN_PRICES["gpt-4o"]!;

before(async () => {
  upstream = await startAnsweringUpstream(openAiAnswer);
  opened = await openRelay(upstream.url, {
    providers: { oai: { type: "openai", baseUrl: `${upstream.url}/v1`, apiKey: "sk-openai-secret-never-shown" } },
    models: { "gpt-4o": { provider: "oai", translate: true } },
    budgets: [{ id: "strict", scope: "total", period: "total", limit: 100, mode: "strict" }],
  });
});
after(async () => {
  await opened.stop();
  await upstream.stop();
});

const client = () => new Anthropic({ apiKey: TEST_KEY, baseURL: opened.relay.url, maxRetries: 0, timeout: 5_000 });

describe("Anthropic client → OpenAI provider, translated", () => {
  test("JSON: system, image blocks, stop sequences; usage and cost from OpenAI's fields", async () => {
    const { data, response } = await client()
      .messages.create({
        model: "gpt-4o",
        max_tokens: 64,
        system: "Be brief.",
        stop_sequences: ["END"],
        messages: [{ role: "user", content: [{ type: "text", text: "What is it?" }, { type: "image", source: { type: "base64", media_type: "image/png", data: "iVBORw0KGgo=" } }] }],
      })
      .withResponse();
    assert.deepEqual(data.content, [{ type: "text", text: "Hallo" }]);
    assert.equal(data.stop_reason, "end_turn");
    assert.deepEqual([data.usage.input_tokens, data.usage.cache_read_input_tokens, data.usage.output_tokens], [80, 40, 9]);
    const sent = upstream.bodies.at(-1)!;
    assert.deepEqual((sent["messages"] as unknown[])[0], { role: "system", content: "Be brief." });
    assert.deepEqual((sent["messages"] as Array<{ content: unknown[] }>)[1]!.content[1], { type: "image_url", image_url: { url: "data:image/png;base64,iVBORw0KGgo=" } });
    assert.deepEqual(sent["stop"], ["END"]);
    assert.equal(upstream.headers.at(-1)!.get("authorization"), "Bearer sk-openai-secret-never-shown");
    const id = response.headers.get("request-id")!;
    const entry = (await finishedEntries(opened.store, [id])).get(id)!;
    assert.equal(entry.outcome, "ok");
    assert.deepEqual([entry.inputTokens, entry.cachedInputTokens, entry.outputTokens], [80, 40, 9]);
    assert.equal(entry.cost, costOf(NORMALIZED, price));
    assert.ok(entry.cost! <= entry.reservedCost!);
  });

  test("JSON tools: tool_use block, a tool_result turn and tool_choice", async () => {
    const data = await client().messages.create({
      model: "gpt-4o",
      max_tokens: 64,
      tools: [{ name: "forecast", description: "Forecast", input_schema: { type: "object", properties: { city: { type: "string" } } } }],
      tool_choice: { type: "tool", name: "forecast" },
      messages: [
        { role: "user", content: "Weather?" },
        { role: "assistant", content: [{ type: "tool_use", id: "toolu_0", name: "forecast", input: { city: "Rome" } }] },
        { role: "user", content: [{ type: "tool_result", tool_use_id: "toolu_0", content: "sunny" }] },
      ],
    });
    assert.equal(data.stop_reason, "tool_use");
    assert.deepEqual(data.content, [{ type: "tool_use", id: "call_1", name: "forecast", input: JSON.parse(TOOL_ARGS) }]);
    const sent = upstream.bodies.at(-1)!;
    assert.deepEqual(sent["tool_choice"], { type: "function", function: { name: "forecast" } });
    assert.deepEqual(sent["messages"], [
      { role: "user", content: "Weather?" },
      { role: "assistant", content: null, tool_calls: [{ id: "toolu_0", type: "function", function: { name: "forecast", arguments: '{"city":"Rome"}' } }] },
      { role: "tool", tool_call_id: "toolu_0", content: "sunny" },
    ]);
  });

  test("stream: text and usage through the SDK's message stream; journaled with its cost", async () => {
    const stream = client().messages.stream({ model: "gpt-4o", max_tokens: 32, messages: [{ role: "user", content: "hi" }] });
    const message = await stream.finalMessage();
    assert.equal(message.content.length, 1);
    assert.equal((message.content[0] as { text: string }).text, "Hallo");
    assert.equal(message.stop_reason, "end_turn");
    assert.equal(message.usage.output_tokens, 9);
    assert.equal(upstream.bodies.at(-1)!["stream_options"] !== undefined, true, "the provider is asked for its usage");
    const id = (await stream.withResponse()).response.headers.get("request-id")!;
    const entry = (await finishedEntries(opened.store, [id])).get(id)!;
    assert.equal(entry.cost, costOf(NORMALIZED, price));
  });

  test("stream tools: argument fragments reassemble exactly into the tool input", async () => {
    const message = await client()
      .messages.stream({ model: "gpt-4o", max_tokens: 32, tools: [{ name: "forecast", input_schema: { type: "object" } }], messages: [{ role: "user", content: "hi" }] })
      .finalMessage();
    assert.equal(message.stop_reason, "tool_use");
    assert.deepEqual(message.content, [{ type: "tool_use", id: "call_1", name: "forecast", input: JSON.parse(TOOL_ARGS) }]);
  });

  test("an OpenAI error arrives in Anthropic's envelope with its status", async () => {
    const error = await client().messages.create({ model: "gpt-4o", max_tokens: 8, messages: [{ role: "user", content: "please fail" }] }).catch((e: unknown) => e);
    assert.ok(error instanceof Anthropic.APIError);
    assert.equal(error.status, 400);
    assert.equal((error.error as { error: { type: string } }).error.type, "invalid_request_error");
    assert.match(error.message, /Invalid value for 'temperature'/);
  });

  test("thinking has no OpenAI chat equivalent: a 400 naming it", async () => {
    const error = await client().messages.create({ model: "gpt-4o", max_tokens: 2048, thinking: { type: "enabled", budget_tokens: 1024 }, messages: [{ role: "user", content: "hi" }] }).catch((e: unknown) => e);
    assert.ok(error instanceof Anthropic.APIError);
    assert.equal(error.status, 400);
    assert.match(error.message, /`thinking`/);
  });
});
