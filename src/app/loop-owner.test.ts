import assert from "node:assert/strict";
import os from "node:os";
import { describe, it } from "node:test";
import { eventLoopCount } from "./loop-owner.ts";

describe("eventLoopCount", () => {
  const withWorkers = { loopWorker: () => ({}) as Worker };
  it("is the setting on Linux where the runtime can start loop workers", () => {
    assert.equal(eventLoopCount(3, withWorkers, "linux"), 3);
    assert.equal(eventLoopCount(1, withWorkers, "linux"), 1);
  });
  it("auto is one loop per available core", () => {
    const cores = typeof os.availableParallelism === "function" ? os.availableParallelism() : os.cpus().length;
    assert.equal(eventLoopCount("auto", withWorkers, "linux"), Math.min(64, Math.max(1, cores)));
  });
  it("is one where the server cannot share its port (Deno) or the kernel would not spread connections (not Linux)", () => {
    assert.equal(eventLoopCount(4, { loopWorker: undefined }, "linux"), 1);
    assert.equal(eventLoopCount("auto", withWorkers, "darwin"), 1);
  });
});
