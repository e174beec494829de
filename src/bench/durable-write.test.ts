import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { renderReport, type BenchReport, type ModeResult, type RelayPoint } from "./bench-report.ts";
import { summarize } from "./bench-stats.ts";
import type { DiskFloor } from "./disk-floor.ts";
import { durableWriteCosts, renioRelayId } from "./durable-write.ts";

const relay = (journal: string, overheadMs: number): RelayPoint => ({
  id: renioRelayId(journal),
  label: `Renio ${journal}`,
  latency: summarize([2 + overheadMs]),
  overhead: { median: overheadMs, p95: overheadMs },
});

const floor: DiskFloor = { recordBytes: 256, latency: summarize([0.4, 0.5, 0.6]) };

const modes: ModeResult[] = [
  {
    mode: "json",
    points: [
      { concurrency: 16, direct: summarize([2]), relays: [relay("fsync", 3), relay("process", 1)] },
      { concurrency: 1, direct: summarize([2]), relays: [relay("fsync", 1.05), relay("process", 0.5)] },
    ],
  },
  { mode: "stream", points: [{ concurrency: 1, direct: summarize([2]), relays: [relay("fsync", 1)] }] },
];

describe("durableWriteCosts", () => {
  it("takes fsync minus process at the lowest concurrency as a ratio to the disk floor, where both ran", () => {
    const [cost, ...rest] = durableWriteCosts(modes, floor);
    assert.deepEqual(rest, []);
    assert.equal(cost!.mode, "json");
    assert.equal(cost!.concurrency, 1);
    assert.ok(Math.abs(cost!.fsyncMinusProcessMs - 0.55) < 1e-9);
    assert.equal(cost!.floorMedianMs, 0.5);
    assert.ok(Math.abs(cost!.ratio - 1.1) < 1e-9);
  });

  it("is printed under the disk floor in the report", () => {
    const report: BenchReport = {
      renioVersion: "0.1.0",
      startedAt: "2026-01-01T00:00:00.000Z",
      durationSeconds: 3,
      method: { requests: 3, warmup: 1, rounds: 1, concurrency: [16, 1], mock: { latencyMs: 2, chunkIntervalMs: 1, chunks: 8 }, model: "mock-gpt" },
      machine: { cpuModel: "Test CPU", cores: 2, memoryGiB: 4, os: "Linux" },
      runtime: "bun 1.4.5",
      relay: { journal: "fsync", journals: ["fsync", "process"], budget: "strict", storage: "sqlite" },
      diskFloor: floor,
      durableWrite: durableWriteCosts(modes, floor),
      modes,
    };
    const text = renderReport(report, "text");
    assert.match(text, /\nDurable write\n\nDisk floor: one O_DSYNC write of 256 B, 3 back to back: median 0\.50 ms, P95 0\.59 ms\n/);
    assert.match(text, /\nRenio fsync − Renio process at 1, non-streaming: 0\.55 ms = 1\.10× the floor \(target ≤ 1\.1×\)\n/);
    assert.match(text, /one Renio per journal setting \(fsync, process\), measured in the same rounds/);
    const direct = renderReport({ ...report, diskFloor: { ...floor, writeMethod: "direct" } }, "text");
    assert.match(direct, /\nDisk floor: one O_DIRECT \| O_DSYNC write \(as the admission log writes here\) of 256 B, 3 back to back: median 0\.50 ms/);
    const withCpu = renderReport({ ...report, diskFloor: { ...floor, cpuPerWriteSeconds: 37e-6, paced: [{ pauseMs: 3, latency: summarize([1, 1.1, 1.2]), cpuPerWriteSeconds: 98e-6 }] } }, "text");
    assert.match(withCpu, /\nDisk floor: one O_DSYNC write of 256 B, 3 back to back: median 0\.50 ms, P95 0\.59 ms, CPU 37 µs per write\nPaced floor: the same write after 3 ms idle, 3 times: median 1\.10 ms, P95 1\.19 ms, CPU 98 µs per write\n/);
  });

  it("is also taken against the paced floor of its mode's idle, when measured, and printed beside it", () => {
    const paced: DiskFloor = { ...floor, paced: [{ pauseMs: 3, latency: summarize([1, 1.1, 1.2]) }, { pauseMs: 11, latency: summarize([2, 2.2, 2.4]) }] };
    const [cost] = durableWriteCosts(modes, paced, undefined, (mode) => (mode === "json" ? 3 : 11));
    assert.equal(cost!.ratio, cost!.fsyncMinusProcessMs / 0.5);
    assert.equal(cost!.paced?.pauseMs, 3, "the non-streaming floor");
    assert.equal(cost!.paced?.floorMedianMs, 1.1);
    assert.ok(Math.abs(cost!.paced.ratio - 0.5) < 1e-9);
    const report: BenchReport = {
      renioVersion: "0.1.0",
      startedAt: "2026-01-01T00:00:00.000Z",
      durationSeconds: 3,
      method: { requests: 3, warmup: 1, rounds: 1, concurrency: [1], mock: { latencyMs: 2, chunkIntervalMs: 1, chunks: 8 }, model: "mock-gpt" },
      machine: { cpuModel: "Test CPU", cores: 2, memoryGiB: 4, os: "Linux" },
      runtime: "bun 1.4.5",
      relay: { journal: "fsync", journals: ["fsync", "process"], budget: "strict", storage: "sqlite" },
      diskFloor: paced,
      durableWrite: [cost!],
      modes,
    };
    const text = renderReport(report, "text");
    assert.match(text, /\nPaced floor: the same write after 3 ms idle, 3 times: median 1\.10 ms, P95 1\.19 ms\nPaced floor: the same write after 11 ms idle, 3 times: median 2\.20 ms, P95 2\.38 ms\n/);
    assert.match(text, /: 0\.55 ms = 1\.10× the floor, 0\.50× the paced floor \(3 ms idle\) \(target ≤ 1\.1×\)\n/);
  });
});
