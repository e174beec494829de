import assert from "node:assert/strict";
import { test } from "node:test";
import { costOf } from "./cost.ts";

const GPT_4O = { input: 2.5, cachedInput: 1.25, output: 10, maxOutputTokens: 16_384 };

test("costOf charges each kind of token at its per-million price", () => {
  assert.equal(costOf({ inputTokens: 1_000_000, cachedInputTokens: 0, outputTokens: 0 }, GPT_4O), 2.5);
  assert.equal(costOf({ inputTokens: 0, cachedInputTokens: 1_000_000, outputTokens: 0 }, GPT_4O), 1.25);
  assert.equal(costOf({ inputTokens: 0, cachedInputTokens: 0, outputTokens: 1_000_000 }, GPT_4O), 10);
  assert.equal(costOf({ inputTokens: 16, cachedInputTokens: 4, outputTokens: 8 }, GPT_4O), 0.000125);
  assert.equal(costOf({ inputTokens: 0, cachedInputTokens: 0, outputTokens: 0 }, GPT_4O), 0);
});

test("costOf does not add a step for float noise", () => {
  const price = { input: 0.1, cachedInput: 0.1, output: 0.2 };
  // 3 × 0.1 = 0.30000000000000004 in floating point
  assert.equal(costOf({ inputTokens: 3, cachedInputTokens: 0, outputTokens: 0 }, price), 3e-7);
  assert.equal(costOf({ inputTokens: 1, cachedInputTokens: 0, outputTokens: 1 }, price), 3e-7);
});

test("costOf rounds up to a billionth, never down", () => {
  const price = { input: 0.15, cachedInput: 0.075, output: 0.6 };
  // 1 input token at 0.15/M = 1.5e-7 exactly; 1 cached = 7.5e-8 → 75 nano-units
  assert.equal(costOf({ inputTokens: 0, cachedInputTokens: 1, outputTokens: 0 }, price), 7.5e-8);
  const tiny = { input: 0.0001, cachedInput: 0.0001, output: 0 };
  // 1e-10 per token → rounds up to 1e-9
  assert.equal(costOf({ inputTokens: 1, cachedInputTokens: 0, outputTokens: 0 }, tiny), 1e-9);
  for (let tokens = 1; tokens < 5000; tokens += 37) {
    const exact = (tokens * 15) / 1e8; // tokens × 0.15 / 1e6
    const cost = costOf({ inputTokens: tokens, cachedInputTokens: 0, outputTokens: 0 }, price);
    assert.ok(cost >= exact - 1e-18 && cost - exact < 1.000001e-9, `${tokens}`);
  }
});

const SONNET = {
  input: 3,
  cachedInput: 0.3,
  output: 15,
  cacheWrite5m: 3.75,
  cacheWrite1h: 6,
  longContext: { aboveInputTokens: 200_000, input: 6, cachedInput: 0.6, output: 22.5, cacheWrite5m: 7.5, cacheWrite1h: 12 },
  tools: { web_search: 0.01, web_fetch: 0 },
};

test("cache writes within the input are charged at their 5-minute and 1-hour rates", () => {
  const usage = { inputTokens: 1_000_000 + 2_000_000 + 1_000_000, cachedInputTokens: 0, outputTokens: 0, cacheWrite5mTokens: 2_000_000, cacheWrite1hTokens: 1_000_000 };
  // 1M plain at 3 + 2M at 3.75 + 1M at 6 (the whole input is above 200k: long-context rates)
  assert.equal(costOf(usage, { ...SONNET, longContext: undefined }), 3 + 7.5 + 6);
  assert.equal(costOf({ inputTokens: 100, cachedInputTokens: 0, outputTokens: 0, cacheWrite1hTokens: 100 }, SONNET), 0.0006);
  // Without cache-write rates, writes cost the input price.
  assert.equal(costOf({ inputTokens: 100, cachedInputTokens: 0, outputTokens: 0, cacheWrite1hTokens: 100 }, GPT_4O), 0.00025);
});

test("input above the long-context threshold bills the whole call at the long-context rates", () => {
  const at = costOf({ inputTokens: 150_000, cachedInputTokens: 50_000, outputTokens: 1000 }, SONNET);
  assert.equal(at, 0.48); // 150k at 3 + 50k cached at 0.3 + 1000 at 15
  const above = costOf({ inputTokens: 150_001, cachedInputTokens: 50_000, outputTokens: 1000 }, SONNET);
  assert.equal(above, 0.952506); // 150,001 at 6 + 50k cached at 0.6 + 1000 at 22.5
});

test("the response's service tier chooses the rates; a tier the model does not list is charged standard", () => {
  const gpt5 = { input: 1.25, cachedInput: 0.125, output: 10, serviceTiers: { priority: { input: 2.5, cachedInput: 0.25, output: 20 }, flex: { input: 0.625, cachedInput: 0.0625, output: 5 } } };
  const usage = { inputTokens: 1_000_000, cachedInputTokens: 1_000_000, outputTokens: 1_000_000 };
  assert.equal(costOf(usage, gpt5), 11.375);
  assert.equal(costOf({ ...usage, serviceTier: "priority" }, gpt5), 22.75);
  assert.equal(costOf({ ...usage, serviceTier: "flex" }, gpt5), 5.6875);
  assert.equal(costOf({ ...usage, serviceTier: "scale" }, gpt5), 11.375);
  assert.equal(costOf({ ...usage, serviceTier: "priority" }, GPT_4O), costOf(usage, GPT_4O));
});

test("audio tokens are charged at the model's audio rates, text at text rates", () => {
  const audioModel = { input: 2.5, cachedInput: 2.5, output: 10, audio: { input: 40, output: 80 } };
  const usage = { inputTokens: 1_000_000, cachedInputTokens: 0, outputTokens: 1_000_000, audioInputTokens: 250_000, audioOutputTokens: 500_000 };
  assert.equal(costOf(usage, audioModel), 56.875); // 750k text at 2.5 + 250k audio at 40 + 500k text out at 10 + 500k audio out at 80
  // Audio input only (Gemini): audio output is charged as text output.
  assert.equal(costOf(usage, { ...audioModel, audio: { input: 1 } }), 12.125);
  // A model without audio rates charges audio as text.
  assert.equal(costOf(usage, GPT_4O), 12.5);
});

test("server-tool uses are charged per use; a tool without a price adds nothing", () => {
  const usage = { inputTokens: 0, cachedInputTokens: 0, outputTokens: 0, toolUses: { web_search: 3, web_fetch: 2, code_execution: 1 } };
  assert.equal(costOf(usage, SONNET), 0.03);
  assert.equal(costOf(usage, GPT_4O), 0);
});
