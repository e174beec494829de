import assert from "node:assert/strict";
import { test } from "node:test";
import { createPriceBook } from "./price-book.ts";
import { BUILTIN_PRICES } from "./prices-builtin.ts";

test("exact built-in names", () => {
  const book = createPriceBook(new Map());
  assert.deepEqual(book.priceOf("gpt-4o"), BUILTIN_PRICES["gpt-4o"]);
  assert.deepEqual(book.priceOf("gpt-4o-mini"), BUILTIN_PRICES["gpt-4o-mini"]);
  assert.deepEqual(book.priceOf("codestral"), BUILTIN_PRICES["codestral"]);
});

test("dated and suffixed variants match the longest prefix at a dash", () => {
  const book = createPriceBook(new Map());
  const cases: Array<[string, string]> = [
    ["gpt-4o-2024-08-06", "gpt-4o"],
    ["gpt-4o-mini-2024-07-18", "gpt-4o-mini"],
    ["gpt-4o-2024-05-13", "gpt-4o-2024-05-13"],
    ["gpt-4.1-nano-2025-04-14", "gpt-4.1-nano"],
    ["o3-2025-04-16", "o3"],
    ["o3-pro-2025-06-10", "o3-pro"],
    ["gpt-5-mini-2025-08-07", "gpt-5-mini"],
    ["claude-3-5-sonnet-20241022", "claude-3-5-sonnet"],
    ["claude-3-5-sonnet-latest", "claude-3-5-sonnet"],
    ["claude-sonnet-4-5-20250929", "claude-sonnet-4-5"],
    ["claude-opus-4-20250514", "claude-opus-4"],
    ["claude-opus-4-5-20251101", "claude-opus-4-5"],
    ["mistral-large-latest", "mistral-large"],
    ["mistral-small-2503", "mistral-small"],
    ["codestral-2501", "codestral"],
    ["mock-model", "mock"],
    ["mock-claude", "mock"],
  ];
  for (const [model, base] of cases) assert.deepEqual(book.priceOf(model), BUILTIN_PRICES[base], model);
});

test("no match across a non-dash boundary or for unknown models", () => {
  const book = createPriceBook(new Map());
  for (const model of ["gpt-4oo", "gpt-5x", "unknown", "", "-", "mockery", "o3x-mini"]) {
    assert.equal(book.priceOf(model), undefined, model);
  }
});

test("config overrides win and default cachedInput to input", () => {
  const book = createPriceBook(new Map(Object.entries({
    "gpt-4o": { input: 1, output: 2 },
    "my-model": { input: 3, cachedInput: 1, output: 4, maxOutputTokens: 100 },
  })));
  assert.deepEqual(book.priceOf("gpt-4o"), { input: 1, cachedInput: 1, output: 2 });
  assert.deepEqual(book.priceOf("gpt-4o-2024-08-06"), { input: 1, cachedInput: 1, output: 2 });
  assert.deepEqual(book.priceOf("gpt-4o-mini"), BUILTIN_PRICES["gpt-4o-mini"]);
  assert.deepEqual(book.priceOf("my-model-v2"), { input: 3, cachedInput: 1, output: 4, maxOutputTokens: 100 });
});

test("memoized lookups return the same frozen object", () => {
  const book = createPriceBook(new Map());
  const first = book.priceOf("gpt-4o-2024-08-06");
  assert.ok(first !== undefined && Object.isFrozen(first));
  assert.equal(book.priceOf("gpt-4o-2024-08-06"), first);
  assert.equal(book.priceOf("gpt-4o"), first);
  for (let i = 0; i < 3000; i++) assert.equal(book.priceOf(`nope-${i}`), undefined);
  assert.equal(book.priceOf("gpt-4o-2024-08-06"), first);
});

test("every built-in price is sane", () => {
  for (const [model, price] of Object.entries(BUILTIN_PRICES)) {
    assert.ok(price.input > 0 && price.output >= 0, model);
    assert.ok(price.cachedInput > 0 && price.cachedInput <= price.input, model);
    assert.ok(price.maxOutputTokens === undefined || Number.isSafeInteger(price.maxOutputTokens), model);
  }
});

test("config prices carry long-context, service-tier, audio and per-use tool rates, frozen", () => {
  const book = createPriceBook(new Map(Object.entries({
    "my-model": {
      input: 1,
      output: 4,
      longContext: { aboveInputTokens: 100_000, input: 2, output: 8 },
      serviceTiers: { priority: { input: 3, cachedInput: 1, output: 9 } },
      audio: { input: 20 },
      tools: { web_search: 0.02 },
    },
  })));
  const price = book.priceOf("my-model-v2")!;
  assert.deepEqual(price, {
    input: 1,
    cachedInput: 1,
    output: 4,
    longContext: { aboveInputTokens: 100_000, input: 2, cachedInput: 2, output: 8 },
    serviceTiers: { priority: { input: 3, cachedInput: 1, output: 9 } },
    audio: { input: 20 },
    tools: { web_search: 0.02 },
  });
  assert.ok(Object.isFrozen(price.longContext) && Object.isFrozen(price.serviceTiers!.priority) && Object.isFrozen(price.tools));
  assert.ok(Object.isFrozen(book.priceOf("claude-sonnet-4")!.longContext));
});
