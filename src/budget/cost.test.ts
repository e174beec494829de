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
