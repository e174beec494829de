import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { concatArrays } from "./array-concat.ts";

describe("concatArrays", () => {
  test("copies bytes end to end into the array it makes", () => {
    const parts = [new Uint8Array([1, 2]), new Uint8Array(0), new Uint8Array([3])];
    const out = concatArrays(parts, (length) => new Uint8Array(length));
    assert.deepEqual(out, new Uint8Array([1, 2, 3]));
    assert.notEqual(out, parts[0]);
  });

  test("works for other typed arrays and for no parts", () => {
    assert.deepEqual(concatArrays([new Float64Array([0.5]), new Float64Array([1.5, 2])], (n) => new Float64Array(n)), new Float64Array([0.5, 1.5, 2]));
    assert.deepEqual(concatArrays([], (n) => new Uint8Array(n)), new Uint8Array(0));
  });
});
