import assert from "node:assert/strict";
import { mkdtempSync, readdirSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, it } from "node:test";
import { measureDiskFloor, measureDiskFloors } from "./disk-floor.ts";

describe("measureDiskFloor", () => {
  it("times every O_DSYNC write of the asked size and leaves nothing behind", () => {
    const dir = mkdtempSync(join(tmpdir(), "renio-floor-"));
    try {
      const floor = measureDiskFloor(dir, { writes: 20, recordBytes: 128 });
      assert.equal(floor.recordBytes, 128);
      assert.equal(floor.latency.samples, 20);
      assert.ok(floor.latency.min >= 0 && floor.latency.median <= floor.latency.p95 && floor.latency.p95 <= floor.latency.max);
      assert.deepEqual(readdirSync(dir), []);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it("also times the same writes each after an idle pause, for each pause, and leaves nothing behind", async () => {
    const dir = mkdtempSync(join(tmpdir(), "renio-floor-"));
    try {
      const floor = await measureDiskFloors(dir, { writes: 10, recordBytes: 128 }, [1, 2]);
      assert.equal(floor.latency.samples, 10);
      assert.deepEqual(floor.paced?.map((paced) => [paced.pauseMs, paced.latency.samples]), [[1, 10], [2, 10]]);
      for (const paced of floor.paced!) assert.ok(paced.latency.min >= 0 && paced.latency.median <= paced.latency.max);
      assert.deepEqual(readdirSync(dir), []);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
