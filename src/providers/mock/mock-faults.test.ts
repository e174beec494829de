import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { mergeFaults, MockFaultSyntaxError, parseFaultHeader } from "./mock-faults.ts";

describe("x-mock-fault parsing", () => {
  test("reads every item", () => {
    assert.deepEqual(parseFaultHeader("status=503; delay=200;cut=3;slow=50;reset"), {
      status: 503,
      firstByteDelayMs: 200,
      cutAfterChunks: 3,
      chunkIntervalMs: 50,
      reset: true,
    });
    assert.deepEqual(parseFaultHeader(""), {});
  });

  test("rejects unknown items and bad numbers", () => {
    assert.throws(() => parseFaultHeader("explode"), MockFaultSyntaxError);
    assert.throws(() => parseFaultHeader("delay=-1"), MockFaultSyntaxError);
    assert.throws(() => parseFaultHeader("cut=x"), MockFaultSyntaxError);
    assert.throws(() => parseFaultHeader("status=42"), MockFaultSyntaxError);
    assert.throws(() => parseFaultHeader("slow="), MockFaultSyntaxError);
  });

  test("request faults override server faults field by field", () => {
    assert.deepEqual(mergeFaults({ status: 500, chunkIntervalMs: 5 }, { status: 429 }), { status: 429, chunkIntervalMs: 5 });
    assert.deepEqual(mergeFaults(undefined, { cutAfterChunks: 1 }), { cutAfterChunks: 1 });
    assert.deepEqual(mergeFaults({ reset: true }, undefined), { reset: true });
  });
});
