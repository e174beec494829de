import { closeSync, constants, fsyncSync, openSync, rmSync, writeSync } from "node:fs";
import { join } from "node:path";
import process from "node:process";
import { DirectStager } from "../journal/admission-log/direct-append.ts";
import { summarize, type LatencySummary } from "./bench-stats.ts";

/** The disk's own durable-write latency, measured the way the journal writes. */
export interface DiskFloor {
  /** Bytes per write. */
  readonly recordBytes: number;
  /**
   * How the writes were made, as the admission log makes them on this file system: `direct`
   * (O_DIRECT | O_DSYNC, the blocks a record touches) or `dsync` (O_DSYNC through the page
   * cache). Absent in reports of builds that only wrote `dsync`.
   */
  readonly writeMethod?: "direct" | "dsync";
  /** Latency of one O_DSYNC write, back to back (ms). */
  readonly latency: LatencySummary;
  /**
   * CPU one of those writes costs the writing thread, system calls and interrupts included
   * (seconds, the mean; user + system of the process around each write, less the reading's own
   * cost). The event loop pays it for every group of admissions it writes. Absent in older reports.
   */
  readonly cpuPerWriteSeconds?: number;
  /**
   * Latency of one O_DSYNC write made after the event loop idled `pauseMs` (ms), for each pause
   * measured: the pace of a lone caller, whose admission finds the disk (and the thread waiting
   * on it) idle since its previous call. On many virtual disks this is several times the
   * back-to-back figure, and longer pauses cost more.
   */
  readonly paced?: readonly PacedFloor[];
}

/** The disk floor after an idle pause. */
export interface PacedFloor {
  readonly pauseMs: number;
  readonly latency: LatencySummary;
  /** CPU per write, as {@link DiskFloor.cpuPerWriteSeconds} (waking to a device that went idle can cost more). */
  readonly cpuPerWriteSeconds?: number;
}

/** What {@link measureDiskFloor} writes. */
export interface DiskFloorPlan {
  readonly writes: number;
  readonly recordBytes: number;
}

/** About one admission record of the journal. */
export const DISK_FLOOR_PLAN: DiskFloorPlan = { writes: 300, recordBytes: 256 };


/**
 * Writes `writes` records of `recordBytes` back to back, each one durable write at the next
 * offset of a zero-filled, synced file in `dir` (as the admission log does: the file never
 * grows, so each write flushes data only; direct where the log would write direct), times
 * each, and deletes the file.
 */
export function measureDiskFloor(dir: string, plan: DiskFloorPlan = DISK_FLOOR_PLAN): DiskFloor {
  const file = openFloorFile(dir, plan);
  try {
    const samples = new Float64Array(plan.writes);
    for (let i = 0; i < plan.writes; i++) samples[i] = file.timeWrite(i);
    return { recordBytes: plan.recordBytes, writeMethod: file.writeMethod, latency: summarize(samples), cpuPerWriteSeconds: file.cpuPerWrite() };
  } finally {
    file.remove();
  }
}

/** {@link measureDiskFloor}, then for each of `pauses` as many writes again, each after the event loop idled that long (a timer). */
export async function measureDiskFloors(dir: string, plan: DiskFloorPlan, pauses: readonly number[]): Promise<DiskFloor> {
  const backToBack = measureDiskFloor(dir, plan);
  const paced: PacedFloor[] = [];
  for (const pauseMs of pauses) {
    const file = openFloorFile(dir, plan);
    try {
      const samples = new Float64Array(plan.writes);
      for (let i = 0; i < plan.writes; i++) {
        await new Promise((resolve) => setTimeout(resolve, pauseMs));
        samples[i] = file.timeWrite(i);
      }
      paced.push({ pauseMs, latency: summarize(samples), cpuPerWriteSeconds: file.cpuPerWrite() });
    } finally {
      file.remove();
    }
  }
  return { ...backToBack, paced };
}

/** CPU seconds of this process so far (user + system). */
function cpuSeconds(): number {
  const { user, system } = process.cpuUsage();
  return (user + system) / 1e6;
}

/** What reading {@link cpuSeconds} twice costs (seconds, the mean of `times`): taken off each write's CPU. */
function cpuReadingCost(times = 200): number {
  let total = 0;
  for (let i = 0; i < times; i++) {
    const before = cpuSeconds();
    total += cpuSeconds() - before;
  }
  return total / times;
}

/**
 * A zero-filled, synced file open for durable writes as the log opens its own: `timeWrite(i)`
 * writes record i and returns how long it took (ms); `cpuPerWrite()` the mean CPU of the writes so far (s).
 */
function openFloorFile(dir: string, plan: DiskFloorPlan): { timeWrite(i: number): number; cpuPerWrite(): number; remove(): void; writeMethod: "direct" | "dsync" } {
  const path = join(dir, "disk-floor.bin");
  // Whole blocks, as a log segment is (a direct write covers the blocks a record touches).
  const size = Math.ceil((plan.writes * plan.recordBytes) / 4096) * 4096 + 4096;
  const prepare = openSync(path, constants.O_RDWR | constants.O_CREAT | constants.O_TRUNC, 0o600);
  try {
    writeSync(prepare, new Uint8Array(size), 0, size, 0);
    fsyncSync(prepare);
  } finally {
    closeSync(prepare);
  }
  const stager = DirectStager.forFilesLike(path);
  const fd = stager ? DirectStager.open(path) : openSync(path, constants.O_RDWR | constants.O_DSYNC);
  const record = new Uint8Array(plan.recordBytes).fill(0x61);
  record[plan.recordBytes - 1] = 0x0a;
  const reading = cpuReadingCost();
  let cpu = 0;
  let written = 0;
  return {
    writeMethod: stager ? "direct" : "dsync",
    timeWrite(i) {
      const cpuBefore = cpuSeconds();
      const start = performance.now();
      if (stager) stager.appendSync(fd, record, i * plan.recordBytes);
      else writeSync(fd, record, 0, plan.recordBytes, i * plan.recordBytes);
      const took = performance.now() - start;
      cpu += cpuSeconds() - cpuBefore - reading;
      written++;
      return took;
    },
    cpuPerWrite: () => Math.max(0, cpu / Math.max(1, written)),
    remove() {
      closeSync(fd);
      rmSync(path, { force: true });
    },
  };
}
