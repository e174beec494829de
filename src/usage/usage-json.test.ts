import assert from "node:assert/strict";
import { test } from "node:test";
import { usageFromJson } from "./usage-json.ts";

const enc = new TextEncoder();
const body = (value: unknown) => enc.encode(JSON.stringify(value));

test("OpenAI chat/completions usage, cached tokens excluded from input", () => {
  const usage = usageFromJson(
    body({ id: "x", choices: [], usage: { prompt_tokens: 120, completion_tokens: 30, total_tokens: 150, prompt_tokens_details: { cached_tokens: 100 } } }),
    "openai",
  );
  assert.deepEqual(usage, { inputTokens: 20, cachedInputTokens: 100, outputTokens: 30 });
});

test("OpenAI embeddings usage has no output", () => {
  assert.deepEqual(usageFromJson(body({ data: [], usage: { prompt_tokens: 8, total_tokens: 8 } }), "openai"), {
    inputTokens: 8,
    cachedInputTokens: 0,
    outputTokens: 0,
  });
});

test("OpenAI Responses usage", () => {
  const usage = usageFromJson(
    body({ object: "response", usage: { input_tokens: 10, input_tokens_details: { cached_tokens: 4 }, output_tokens: 5 } }),
    "openai",
  );
  assert.deepEqual(usage, { inputTokens: 6, cachedInputTokens: 4, outputTokens: 5 });
});

test("Anthropic message usage, cache writes counted as input", () => {
  const usage = usageFromJson(
    body({ type: "message", usage: { input_tokens: 10, cache_creation_input_tokens: 3, cache_read_input_tokens: 7, output_tokens: 2 } }),
    "anthropic",
  );
  assert.deepEqual(usage, { inputTokens: 13, cachedInputTokens: 7, outputTokens: 2, cacheWrite5mTokens: 3 });
});

test("cached tokens larger than the prompt are clamped", () => {
  const usage = usageFromJson(body({ usage: { prompt_tokens: 3, prompt_tokens_details: { cached_tokens: 9 } } }), "openai");
  assert.deepEqual(usage, { inputTokens: 0, cachedInputTokens: 3, outputTokens: 0 });
});

test("garbage and bodies without usage return null", () => {
  const cases: Uint8Array[] = [
    new Uint8Array([0xff, 0xfe, 0x00]),
    enc.encode(""),
    enc.encode("{"),
    enc.encode("null"),
    enc.encode("[1,2]"),
    enc.encode('"usage"'),
    body({ usage: null }),
    body({ usage: [1] }),
    body({ usage: { prompt_tokens: "7" } }),
    body({ error: { message: "bad" } }),
  ];
  for (const format of ["openai", "anthropic"] as const) {
    for (const bytes of cases) assert.equal(usageFromJson(bytes, format), null);
  }
});

test("Anthropic cache writes split into 5-minute and 1-hour; a plain count without the split is 5-minute", () => {
  const split = usageFromJson(
    body({ type: "message", usage: { input_tokens: 10, cache_creation_input_tokens: 300, cache_creation: { ephemeral_5m_input_tokens: 100, ephemeral_1h_input_tokens: 200 }, cache_read_input_tokens: 0, output_tokens: 2 } }),
    "anthropic",
  );
  assert.deepEqual(split, { inputTokens: 310, cachedInputTokens: 0, outputTokens: 2, cacheWrite5mTokens: 100, cacheWrite1hTokens: 200 });
  const onlySplit = usageFromJson(body({ usage: { input_tokens: 1, cache_creation: { ephemeral_5m_input_tokens: 0, ephemeral_1h_input_tokens: 50 }, output_tokens: 1 } }), "anthropic");
  assert.deepEqual(onlySplit, { inputTokens: 51, cachedInputTokens: 0, outputTokens: 1, cacheWrite1hTokens: 50 });
  const none = usageFromJson(body({ usage: { input_tokens: 4, cache_creation_input_tokens: 0, output_tokens: 1 } }), "anthropic");
  assert.deepEqual(none, { inputTokens: 4, cachedInputTokens: 0, outputTokens: 1 }, "zero counts add no field");
});

test("Anthropic server-tool uses from usage.server_tool_use", () => {
  const usage = usageFromJson(body({ usage: { input_tokens: 9, output_tokens: 3, server_tool_use: { web_search_requests: 2, web_fetch_requests: 0 } } }), "anthropic");
  assert.deepEqual(usage, { inputTokens: 9, cachedInputTokens: 0, outputTokens: 3, toolUses: { web_search: 2 } });
});

test("OpenAI audio tokens, a non-default service tier and Responses tool calls", () => {
  const chat = usageFromJson(
    body({
      service_tier: "priority",
      usage: { prompt_tokens: 100, completion_tokens: 50, prompt_tokens_details: { cached_tokens: 20, audio_tokens: 60 }, completion_tokens_details: { audio_tokens: 40 } },
    }),
    "openai",
  );
  assert.deepEqual(chat, { inputTokens: 80, cachedInputTokens: 20, outputTokens: 50, audioInputTokens: 60, audioOutputTokens: 40, serviceTier: "priority" });
  const standard = usageFromJson(body({ service_tier: "default", usage: { prompt_tokens: 5, completion_tokens: 1, prompt_tokens_details: { audio_tokens: 0 } } }), "openai");
  assert.deepEqual(standard, { inputTokens: 5, cachedInputTokens: 0, outputTokens: 1 });
  const responses = usageFromJson(
    body({
      object: "response",
      service_tier: "flex",
      output: [{ type: "web_search_call", status: "completed" }, { type: "web_search_call" }, { type: "file_search_call" }, { type: "message" }],
      usage: { input_tokens: 30, output_tokens: 10, input_tokens_details: { cached_tokens: 0 } },
    }),
    "openai",
  );
  assert.deepEqual(responses, { inputTokens: 30, cachedInputTokens: 0, outputTokens: 10, serviceTier: "flex", toolUses: { web_search: 2, file_search: 1 } });
});

test("DeepSeek cache hits (prompt_cache_hit_tokens) count as cached input", () => {
  const usage = usageFromJson(body({ usage: { prompt_tokens: 100, completion_tokens: 5, prompt_cache_hit_tokens: 64, prompt_cache_miss_tokens: 36 } }), "openai");
  assert.deepEqual(usage, { inputTokens: 36, cachedInputTokens: 64, outputTokens: 5 });
});

test("the model the provider says answered is kept (gen_ai.response.model), both wire formats", () => {
  const openai = usageFromJson(body({ model: "gpt-4o-2024-08-06", choices: [], usage: { prompt_tokens: 5, completion_tokens: 2 } }), "openai");
  assert.equal(openai?.responseModel, "gpt-4o-2024-08-06");
  const anthropic = usageFromJson(body({ type: "message", model: "claude-sonnet-4-5-20250929", usage: { input_tokens: 5, output_tokens: 2 } }), "anthropic");
  assert.equal(anthropic?.responseModel, "claude-sonnet-4-5-20250929");
  const unnamed = usageFromJson(body({ choices: [], usage: { prompt_tokens: 5, completion_tokens: 2 } }), "openai");
  assert.equal(unnamed?.responseModel, undefined, "no model named, none invented");
});
