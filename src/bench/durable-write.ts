import type { DurableWriteCost, ModeResult } from "./bench-report.ts";
import type { BenchMode } from "./bench-args.ts";
import type { DiskFloor } from "./disk-floor.ts";

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
