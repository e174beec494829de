import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { overheadOf, quantileSorted, summarize } from "./bench-stats.ts";

describe("quantileSorted", () => {
  it("interpolates between closest ranks", () => {
    const sorted = [1, 2, 3, 4];
    assert.equal(quantileSorted(sorted, 0.5), 2.5);
    assert.equal(quantileSorted(sorted, 0), 1);
    assert.equal(quantileSorted(sorted, 1), 4);
    assert.ok(Math.abs(quantileSorted(sorted, 0.95) - 3.85) < 1e-9);
  });

  it("gives the middle value for an odd count and NaN for none", () => {
    assert.equal(quantileSorted([5, 7, 9], 0.5), 7);
    assert.ok(Number.isNaN(quantileSorted([], 0.5)));
  });

  it("matches the P95 of 1..100", () => {
    const values = Array.from({ length: 100 }, (_, i) => i + 1);
    assert.ok(Math.abs(quantileSorted(values, 0.95) - 95.05) < 1e-9);
  });
});

describe("summarize", () => {
  it("sorts a copy and reports count, errors and percentiles", () => {
    const samples = new Float64Array([5, 1, 4, 2, 3]);
    const summary = summarize(samples, 2);
    assert.deepEqual(
      { samples: summary.samples, errors: summary.errors, min: summary.min, median: summary.median, max: summary.max, mean: summary.mean },
      { samples: 5, errors: 2, min: 1, median: 3, max: 5, mean: 3 },
    );
    assert.deepEqual([...samples], [5, 1, 4, 2, 3]);
  });

  it("sorts numerically, not as strings", () => {
    assert.equal(summarize([10, 9, 100]).median, 10);
  });
});

describe("overheadOf", () => {
  it("subtracts median from median and P95 from P95", () => {
    const direct = summarize(Array.from({ length: 100 }, (_, i) => 2 + i / 100));
    const via = summarize(Array.from({ length: 100 }, (_, i) => 2.5 + i / 50));
    const overhead = overheadOf(direct, via);
    assert.ok(Math.abs(overhead.median - (via.median - direct.median)) < 1e-12);
    assert.ok(Math.abs(overhead.p95 - (via.p95 - direct.p95)) < 1e-12);
    assert.ok(overhead.p95 > overhead.median);
  });
});
