import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { backoff } from "./alert-dispatcher.ts";

describe("alert retry backoff", () => {
  const settings = { backoffMs: 1000, maxBackoffMs: 10_000 };

  test("doubles per attempt made, half of it fixed and half random", () => {
    assert.deepEqual([1, 2, 3, 4].map((n) => backoff(n, settings, () => 0)), [500, 1000, 2000, 4000]);
    assert.deepEqual([1, 2, 3, 4].map((n) => backoff(n, settings, () => 0.999_999)), [1000, 2000, 4000, 8000]);
  });

  test("is capped at maxBackoffMs however many attempts were made", () => {
    assert.equal(backoff(30, settings, () => 0.999_999), 10_000);
    assert.equal(backoff(1000, settings, () => 0), 5000);
  });
});
