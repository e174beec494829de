import type { DurableWriteCost, ModeResult } from "./bench-report.ts";
import type { DiskFloor } from "./disk-floor.ts";

/** Relay ids when several journal settings run side by side. */
export function renioRelayId(journal: string): string {
  return `renio-${journal}`;
}

/**
 * For each mode's lowest-concurrency point where Renio `fsync` and Renio `process` were
 * both measured: their median overhead difference and its ratio to the disk floor.
 */
export function durableWriteCosts(modes: readonly ModeResult[], floor: DiskFloor): DurableWriteCost[] {
  const costs: DurableWriteCost[] = [];
  for (const mode of modes) {
    const point = [...mode.points].sort((a, b) => a.concurrency - b.concurrency)[0];
    const fsync = point?.relays.find((relay) => relay.id === renioRelayId("fsync"));
    const processOnly = point?.relays.find((relay) => relay.id === renioRelayId("process"));
    if (point === undefined || fsync === undefined || processOnly === undefined) continue;
    const delta = fsync.overhead.median - processOnly.overhead.median;
    costs.push({ mode: mode.mode, concurrency: point.concurrency, fsyncMinusProcessMs: delta, floorMedianMs: floor.latency.median, ratio: delta / floor.latency.median });
  }
  return costs;
}
