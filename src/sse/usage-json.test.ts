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
