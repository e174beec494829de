import { closeSync, constants, fsyncSync, openSync, rmSync, writeSync } from "node:fs";
import { join } from "node:path";
import { summarize, type LatencySummary } from "./bench-stats.ts";

/** The disk's own durable-write latency, measured the way the journal writes. */
export interface DiskFloor {
  /** Bytes per write. */
  readonly recordBytes: number;
  /** Latency of one O_DSYNC write (ms). */
  readonly latency: LatencySummary;
}

/** What {@link measureDiskFloor} writes. */
export interface DiskFloorPlan {
  readonly writes: number;
  readonly recordBytes: number;
}

/** About one admission record of the journal. */
export const DISK_FLOOR_PLAN: DiskFloorPlan = { writes: 300, recordBytes: 256 };

/**
 * Writes `writes` records of `recordBytes` back to back, each one O_DSYNC write at the
 * next offset of a zero-filled, synced file in `dir` (as the admission log does: the file
 * never grows, so each write flushes data only), times each, and deletes the file.
 */
export function measureDiskFloor(dir: string, plan: DiskFloorPlan = DISK_FLOOR_PLAN): DiskFloor {
  const path = join(dir, "disk-floor.bin");
  const size = plan.writes * plan.recordBytes;
  const prepare = openSync(path, constants.O_RDWR | constants.O_CREAT | constants.O_TRUNC, 0o600);
  try {
    writeSync(prepare, new Uint8Array(size), 0, size, 0);
    fsyncSync(prepare);
  } finally {
    closeSync(prepare);
  }
  const fd = openSync(path, constants.O_RDWR | constants.O_DSYNC);
  const record = new Uint8Array(plan.recordBytes).fill(0x61);
  record[plan.recordBytes - 1] = 0x0a;
  const samples = new Float64Array(plan.writes);
  try {
    for (let i = 0; i < plan.writes; i++) {
      const start = performance.now();
      writeSync(fd, record, 0, plan.recordBytes, i * plan.recordBytes);
      samples[i] = performance.now() - start;
    }
  } finally {
    closeSync(fd);
    rmSync(path, { force: true });
  }
  return { recordBytes: plan.recordBytes, latency: summarize(samples) };
}
