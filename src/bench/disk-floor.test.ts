import assert from "node:assert/strict";
import { closeSync, constants, mkdtempSync, openSync, readdirSync, rmSync, writeFileSync } from "node:fs";
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
      assert.equal(floor.writeMethod, directIoIn(dir) ? "direct" : "dsync", "written as the admission log writes on this file system");
      assert.ok(floor.latency.min >= 0 && floor.latency.median <= floor.latency.p95 && floor.latency.p95 <= floor.latency.max);
      assertWriteCpu(floor.cpuPerWriteSeconds);
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
      for (const paced of floor.paced!) {
        assert.ok(paced.latency.min >= 0 && paced.latency.median <= paced.latency.max);
        assertWriteCpu(paced.cpuPerWriteSeconds);
      }
      assert.deepEqual(readdirSync(dir), []);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

/** A durable write costs its thread some CPU (a system call at the least), and far less than 10 ms of it. */
function assertWriteCpu(seconds: number | undefined): void {
  assert.ok(seconds !== undefined && seconds > 0 && seconds < 0.01, `CPU per write: ${seconds} s`);
}

/** Whether a file in `dir` can be opened for direct I/O (tmpfs, for one, refuses it). */
function directIoIn(dir: string): boolean {
  const probe = join(dir, "probe");
  writeFileSync(probe, new Uint8Array(4096));
  try {
    closeSync(openSync(probe, constants.O_RDONLY | (constants.O_DIRECT ?? 0)));
    return constants.O_DIRECT !== undefined;
  } catch {
    return false;
  } finally {
    rmSync(probe);
  }
}
