import assert from "node:assert/strict";
import { test } from "node:test";
import { RelayError } from "../shared/relay-error.ts";
import { costOf } from "./cost.ts";
import { BUILTIN_PRICES } from "./prices-builtin.ts";
import { reservationFor } from "./reservation.ts";
import { defaultOutputTokens } from "../budgets/default-output.ts";
import { DEFAULT_OUTPUT_RESERVATION } from "../shared/usage.ts";

const GPT_4O = { input: 2.5, cachedInput: 1.25, output: 10, maxOutputTokens: 16_384 };

test("reservation bounds input by body bytes and output by the request", () => {
  const r = reservationFor({ requestBytes: 1000, maxOutputTokens: 500, price: GPT_4O, model: "gpt-4o" });
  assert.deepEqual(r, {
    amount: costOf({ inputTokens: 1000, cachedInputTokens: 0, outputTokens: 500 }, GPT_4O),
    outputTokens: 500,
    outputFrom: "request",
    inputTokens: 1000,
    choices: 1,
    outputRate: 10,
    tokens: 1500,
  });
  assert.equal(r.amount, 0.0075);
});

test("the token bound (what a tokens-per-minute limit reserves) counts every input pass and every choice", () => {
  const r = reservationFor({ requestBytes: 1000, maxOutputTokens: 500, choices: 3, inputByReference: true, toolUses: { web_search: 2 }, price: { ...GPT_4O, contextWindow: 8000, tools: { web_search: 0.01 } }, model: "gpt-4o" });
  assert.equal(r.tokens, 8000 * 3 + 500 * 3);
});

test("reservation falls back to the model maximum, then to the default; it says which bound it took", () => {
  const byModel = reservationFor({ requestBytes: 10, price: GPT_4O, model: "gpt-4o" });
  assert.deepEqual([byModel.outputTokens, byModel.outputFrom], [16_384, "model"]);
  const byOperator = reservationFor({ requestBytes: 10, defaultOutputTokens: 2000, price: GPT_4O, model: "gpt-4o" });
  assert.deepEqual([byOperator.outputTokens, byOperator.outputFrom], [2000, "default"]);
  const capped = reservationFor({ requestBytes: 10, defaultOutputTokens: 20_000, price: GPT_4O, model: "gpt-4o" });
  assert.deepEqual([capped.outputTokens, capped.outputFrom], [16_384, "model"]);
  const noMax = { input: 2, cachedInput: 2, output: 6 };
  const r = reservationFor({ requestBytes: 10, price: noMax, model: "mistral-large" });
  assert.equal(r.outputTokens, DEFAULT_OUTPUT_RESERVATION);
  assert.equal(r.outputFrom, "fallback");
  assert.equal(reservationFor({ requestBytes: 10, maxOutputTokens: 0, price: noMax, model: "m" }).outputTokens, 0);
});

test("reservation charges input at the higher of input and cached price", () => {
  const odd = { input: 1, cachedInput: 3, output: 0 };
  assert.equal(reservationFor({ requestBytes: 1_000_000, maxOutputTokens: 0, price: odd, model: "m" }).amount, 3);
});

test("a request above the model maximum is refused with max_tokens_too_large", () => {
  assert.throws(
    () => reservationFor({ requestBytes: 10, maxOutputTokens: 16_385, price: GPT_4O, model: "gpt-4o" }),
    (error: unknown) =>
      error instanceof RelayError &&
      error.status === 400 &&
      error.code === "max_tokens_too_large" &&
      error.message.includes("gpt-4o") &&
      error.message.includes("16384"),
  );
  assert.equal(reservationFor({ requestBytes: 10, maxOutputTokens: 16_384, price: GPT_4O, model: "gpt-4o" }).outputTokens, 16_384);
});

test("every choice (`n`, `best_of`) reserves its own output; outputTokens stays per choice", () => {
  const one = reservationFor({ requestBytes: 0, maxOutputTokens: 1000, price: GPT_4O, model: "gpt-4o" });
  const eight = reservationFor({ requestBytes: 0, maxOutputTokens: 1000, choices: 8, price: GPT_4O, model: "gpt-4o" });
  assert.ok(Math.abs(eight.amount - 8 * one.amount) < 1e-12);
  assert.equal(eight.outputTokens, 1000);
});

test("input is reserved at the highest rate that can apply: Anthropic 1-hour cache writes at 2x input", () => {
  const sonnet = BUILTIN_PRICES["claude-sonnet-4"]!;
  assert.equal(sonnet.cacheWrite5m, 3.75);
  assert.equal(sonnet.cacheWrite1h, 6);
  assert.equal(reservationFor({ requestBytes: 100_000, maxOutputTokens: 0, price: sonnet, model: "claude-sonnet-4" }).amount, 0.6);
});

test("the long-context tier applies when the reserved input exceeds its threshold", () => {
  const sonnet = BUILTIN_PRICES["claude-sonnet-4-5"]!;
  const below = reservationFor({ requestBytes: 200_000, maxOutputTokens: 1000, price: sonnet, model: "claude-sonnet-4-5" });
  assert.equal(below.amount, 1.215); // 200k at 6 (1-hour write rate) + 1000 at 15
  const above = reservationFor({ requestBytes: 200_001, maxOutputTokens: 1000, price: sonnet, model: "claude-sonnet-4-5" });
  // The whole call at the long-context rates: 1-hour cache writes at 12, output at 22.5.
  assert.equal(above.amount, costOf({ inputTokens: 200_001, cachedInputTokens: 0, outputTokens: 1000 }, { input: 12, cachedInput: 12, output: 22.5 }));
  const gemini = BUILTIN_PRICES["gemini-2.5-pro"]!;
  assert.equal(reservationFor({ requestBytes: 300_000, maxOutputTokens: 0, price: gemini, model: "gemini-2.5-pro" }).amount, 0.75);
});

test("the request's service tier chooses the reserved rates", () => {
  const gpt5 = BUILTIN_PRICES["gpt-5"]!;
  const at = (serviceTier?: string) => reservationFor({ requestBytes: 1_000_000, maxOutputTokens: 100_000, serviceTier, price: gpt5, model: "gpt-5" }).amount;
  assert.equal(at(), 1.25 + 1);
  assert.equal(at("default"), 1.25 + 1);
  assert.equal(at("priority"), 2.5 + 2);
  assert.equal(at("flex"), 0.625 + 0.5);
});

test("audio models reserve at the higher of text and audio rates", () => {
  const audio = BUILTIN_PRICES["gpt-4o-audio-preview"]!;
  assert.equal(reservationFor({ requestBytes: 1_000_000, maxOutputTokens: 10_000, price: audio, model: "gpt-4o-audio-preview" }).amount, 40 + 0.8);
});

test("bounded server-tool uses are reserved per use, and each use adds a pass over the context", () => {
  const sonnet = BUILTIN_PRICES["claude-sonnet-4"]!;
  const plain = { requestBytes: 1000, maxOutputTokens: 1000, price: { ...sonnet, contextWindow: 10_000 }, model: "claude-sonnet-4" };
  const byRef = reservationFor({ ...plain, inputByReference: true }).amount;
  const searched = reservationFor({ ...plain, inputByReference: true, toolUses: { web_search: 3 } }).amount;
  // 4 passes of the 10k window at 6 (1-hour write rate) + output + 3 searches at 0.01
  assert.equal(searched, costOf({ inputTokens: 40_000, cachedInputTokens: 0, outputTokens: 1000, toolUses: { web_search: 3 } }, { input: 6, cachedInput: 6, output: 15, tools: { web_search: 0.01 } }));
  assert.ok(searched > byRef * 3);
});

test("the operator's default output bound: used when the request sets none, never above the model's maximum", () => {
  const base = { requestBytes: 1000, price: GPT_4O, model: "gpt-4o" };
  assert.equal(reservationFor({ ...base, defaultOutputTokens: 2000 }).outputTokens, 2000);
  assert.equal(reservationFor({ ...base, defaultOutputTokens: 100_000 }).outputTokens, 16_384);
  assert.equal(reservationFor({ ...base, maxOutputTokens: 300, defaultOutputTokens: 2000 }).outputTokens, 300);
  assert.equal(reservationFor({ ...base, price: { input: 1, cachedInput: 1, output: 1 }, defaultOutputTokens: 50_000 }).outputTokens, 50_000);
  assert.equal(reservationFor({ ...base, price: { input: 1, cachedInput: 1, output: 1 } }).outputTokens, DEFAULT_OUTPUT_RESERVATION);
});

test("budget.defaultOutputTokens: one number, or the public model's entry, the upstream model's, then `*`", () => {
  assert.equal(defaultOutputTokens(undefined)("m", "u"), undefined);
  assert.equal(defaultOutputTokens(900)("m", "u"), 900);
  const perModel = defaultOutputTokens({ "*": 16_000, "gpt-5": 8_000, "azure-gpt-5": 4_000 });
  assert.deepEqual([perModel("gpt-5", "x"), perModel("my-alias", "gpt-5"), perModel("azure-gpt-5", "gpt-5"), perModel("other", "other")], [8_000, 8_000, 4_000, 16_000]);
  assert.equal(defaultOutputTokens({ "gpt-5": 8_000 })("other", "other"), undefined);
});
