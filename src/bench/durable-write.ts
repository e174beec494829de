import type { DurableWriteCost, ModeResult } from "./bench-report.ts";
import type { BenchMode } from "./bench-args.ts";
import type { DiskFloor } from "./disk-floor.ts";
import { formatMs } from "./bench-table.ts";

/** Relay ids when several journal settings (or storages: then `storage` is given) run side by side. */
export function renioRelayId(journal: string, storage?: string): string {
  return storage === undefined ? `renio-${journal}` : `renio-${storage}-${journal}`;
}

/**
 * For each mode's lowest-concurrency point where Renio `fsync` and Renio `process` were
 * both measured: their median overhead difference and its ratio to the disk floor, and to the
 * paced floor measured after the idle a lone caller of that mode leaves between two calls
 * (`pauseOf`). With several storages (relay ids naming them), one cost per storage.
 */
export function durableWriteCosts(
  modes: readonly ModeResult[],
  floor: DiskFloor,
  storages: ReadonlyArray<string | undefined> = [undefined],
  pauseOf: (mode: BenchMode) => number = () => NaN,
): DurableWriteCost[] {
  const costs: DurableWriteCost[] = [];
  for (const mode of modes) {
    const point = [...mode.points].sort((a, b) => a.concurrency - b.concurrency)[0];
    for (const storage of storages) {
      const fsync = point?.relays.find((relay) => relay.id === renioRelayId("fsync", storage));
      const processOnly = point?.relays.find((relay) => relay.id === renioRelayId("process", storage));
      if (point === undefined || fsync === undefined || processOnly === undefined) continue;
      const delta = fsync.overhead.median - processOnly.overhead.median;
      const paced = floor.paced?.find((candidate) => candidate.pauseMs === pauseOf(mode.mode));
      costs.push({
        mode: mode.mode,
        concurrency: point.concurrency,
        ...(storage === undefined ? {} : { storage }),
        fsyncMinusProcessMs: delta,
        floorMedianMs: floor.latency.median,
        ratio: delta / floor.latency.median,
        ...(paced === undefined ? {} : { paced: { pauseMs: paced.pauseMs, floorMedianMs: paced.latency.median, ratio: delta / paced.latency.median } }),
      });
    }
  }
  return costs;
}

/** The report's "Durable write" lines: the floors (latency and CPU per write) and each Renio fsync − process against them. */
export function durableWriteLines(floor: DiskFloor | undefined, costs: readonly DurableWriteCost[] | undefined): string[] {
  if (floor === undefined) return [];
  const how = floor.writeMethod === "direct" ? "one O_DIRECT | O_DSYNC write (as the admission log writes here)" : "one O_DSYNC write";
  const lines = [`Disk floor: ${how} of ${floor.recordBytes} B, ${floor.latency.samples} back to back: median ${formatMs(floor.latency.median)}, P95 ${formatMs(floor.latency.p95)}${cpuPerWrite(floor.cpuPerWriteSeconds)}`];
  for (const paced of floor.paced ?? []) {
    lines.push(`Paced floor: the same write after ${paced.pauseMs} ms idle, ${paced.latency.samples} times: median ${formatMs(paced.latency.median)}, P95 ${formatMs(paced.latency.p95)}${cpuPerWrite(paced.cpuPerWriteSeconds)}`);
  }
  for (const cost of costs ?? []) {
    const mode = cost.mode === "json" ? "non-streaming" : "streaming";
    const renio = cost.storage === undefined ? "Renio" : `Renio ${cost.storage}`;
    const againstPaced = cost.paced === undefined ? "" : `, ${cost.paced.ratio.toFixed(2)}× the paced floor (${cost.paced.pauseMs} ms idle)`;
    lines.push(`${renio} fsync − ${renio} process at ${cost.concurrency}, ${mode}: ${formatMs(cost.fsyncMinusProcessMs)} = ${cost.ratio.toFixed(2)}× the floor${againstPaced} (target ≤ 1.1×)`);
  }
  return lines;
}

/** ", CPU 37 µs per write", or nothing for a report without it. */
function cpuPerWrite(seconds: number | undefined): string {
  return seconds === undefined ? "" : `, CPU ${Math.round(seconds * 1e6)} µs per write`;
}
