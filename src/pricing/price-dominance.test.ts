import assert from "node:assert/strict";
import { describe, it } from "node:test";
import type { Price } from "./prices-builtin.ts";
import { boundsAtLeast, dearestBounds } from "./price-dominance.ts";

const rates = (input: number, output: number): Price => ({ input, cachedInput: input, output });

describe("boundsAtLeast", () => {
  it("needs rates at least as high for input (cache writes and audio included) and output", () => {
    assert.ok(boundsAtLeast(rates(3, 6), rates(1, 2)));
    assert.ok(boundsAtLeast(rates(1, 2), rates(1, 2)));
    assert.ok(!boundsAtLeast(rates(1, 2), rates(3, 6)));
    assert.ok(!boundsAtLeast(rates(10, 1), rates(1, 10)), "crossed prices bound neither way");
    assert.ok(!boundsAtLeast(rates(3, 6), { ...rates(1, 2), cacheWrite1h: 4 }));
    assert.ok(!boundsAtLeast(rates(3, 6), { ...rates(1, 2), audio: { input: 1, output: 7 } }));
  });

  it("compares each service tier, and long-context rates as the highest a call may reach", () => {
    assert.ok(!boundsAtLeast(rates(3, 6), { ...rates(1, 2), serviceTiers: { priority: rates(4, 8) } }));
    assert.ok(boundsAtLeast({ ...rates(3, 6), serviceTiers: { priority: rates(5, 10) } }, { ...rates(1, 2), serviceTiers: { priority: rates(4, 8) } }));
    assert.ok(!boundsAtLeast(rates(3, 6), { ...rates(1, 2), longContext: { aboveInputTokens: 1000, ...rates(4, 8) } }));
    assert.ok(!boundsAtLeast({ ...rates(3, 6), longContext: { aboveInputTokens: 1000, ...rates(0.5, 1) } }, rates(1, 2)), "its cheaper long-context rates may apply");
  });

  it("needs a context window and an output maximum at least as large", () => {
    assert.ok(!boundsAtLeast({ ...rates(3, 6), contextWindow: 100_000 }, { ...rates(1, 2), contextWindow: 200_000 }));
    assert.ok(!boundsAtLeast(rates(3, 6), { ...rates(1, 2), contextWindow: 200_000 }), "no window: referenced input is not bounded as high");
    assert.ok(boundsAtLeast({ ...rates(3, 6), contextWindow: 200_000 }, rates(1, 2)));
    assert.ok(!boundsAtLeast({ ...rates(3, 6), maxOutputTokens: 1000 }, rates(1, 2)), "the other reserves 4096 output tokens");
    assert.ok(boundsAtLeast({ ...rates(3, 6), maxOutputTokens: 8000 }, { ...rates(1, 2), maxOutputTokens: 8000 }));
  });

  it("needs each per-use tool price both list at least as high; an unpriced model is reserved at zero rates", () => {
    assert.ok(!boundsAtLeast({ ...rates(3, 6), tools: { web_search: 0.01 } }, { ...rates(1, 2), tools: { web_search: 0.02 } }));
    assert.ok(boundsAtLeast({ ...rates(3, 6), tools: { web_search: 0.02 } }, { ...rates(1, 2), tools: { web_search: 0.01, web_fetch: 1 } }), "a tool it has no price for refuses the call at it, so is compared per call");
    assert.ok(boundsAtLeast(rates(1, 2), null));
    assert.ok(!boundsAtLeast(null, rates(1, 2)));
  });
});

describe("dearestBounds", () => {
  it("lists every price that bounds all the others, in order; none when prices cross", () => {
    assert.deepEqual(dearestBounds([rates(1, 2), rates(3, 6), rates(2, 4), rates(3, 6)]), [1, 3]);
    assert.deepEqual(dearestBounds([rates(10, 1), rates(1, 10)]), []);
  });
});
