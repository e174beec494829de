import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { renderReport, type BenchReport, type ModeResult, type RelayPoint } from "./bench-report.ts";
import { summarize } from "./bench-stats.ts";
import { guardrailsCosts } from "./guardrails-cost.ts";

const relay = (id: string, label: string, median: number, p95: number, cpu: number, guardrails?: RelayPoint["guardrails"]): RelayPoint => ({
  id,
  label,
  latency: summarize([2 + median]),
  overhead: { median, p95 },
  cpuPerRequestSeconds: cpu,
  ...(guardrails === undefined ? {} : { guardrails }),
});

const modes: ModeResult[] = [
  {
    mode: "stream",
    points: [
      {
        concurrency: 1,
        direct: summarize([2]),
        relays: [
          relay("renio-fsync", "Renio fsync", 0.5, 1, 0.0001),
          relay("renio-fsync-guardrails-redact", "Renio fsync, guardrails redact", 1.75, 2.5, 0.00015, { action: "redact", unguarded: "renio-fsync" }),
          relay("renio-process", "Renio process", 0.25, 0.75, 0.00008),
          relay("renio-process-guardrails-redact", "Renio process, guardrails redact", 1.5, 2, 0.00012, { action: "redact", unguarded: "renio-process" }),
          relay("renio-lone-guardrails-log", "Renio, guardrails log", 9, 9, 0.001, { action: "log" }),
        ],
      },
    ],
  },
];

describe("guardrailsCosts", () => {
  it("subtracts each guarded Renio's twin at the same point, and skips a guarded Renio without one", () => {
    const costs = guardrailsCosts(modes);
    assert.deepEqual(
      costs.map((cost) => [cost.mode, cost.concurrency, cost.relay, cost.unguarded, cost.medianMs, cost.p95Ms, Math.round(cost.cpuPerRequestSeconds! * 1e6)]),
      [
        ["stream", 1, "renio-fsync-guardrails-redact", "renio-fsync", 1.25, 1.5, 50],
        ["stream", 1, "renio-process-guardrails-redact", "renio-process", 1.25, 1.25, 40],
      ],
    );
  });

  it("is rendered as a table naming both Renios by their labels", () => {
    const report: BenchReport = {
      renioVersion: "0.1.0",
      startedAt: "2026-01-01T00:00:00.000Z",
      durationSeconds: 1,
      method: { requests: 1, warmup: 0, rounds: 1, concurrency: [1], mock: { latencyMs: 2, chunkIntervalMs: 1, chunks: 8 }, model: "mock-gpt" },
      machine: { cpuModel: "Test CPU", cores: 2, memoryGiB: 4, os: "Linux" },
      runtime: "bun 1.4.5",
      relay: { journal: "fsync", journals: ["fsync", "process"], budget: "strict", storage: "sqlite", guardrails: { settings: ["off", "redact"], policy: { id: "bench-all-detectors", detectors: ["pii", "credentials"] } } },
      guardrailsCost: guardrailsCosts(modes),
      modes,
    };
    const text = renderReport(report, "text");
    assert.match(text, /\nGuardrails: what the policy adds \(guarded − unguarded\)\n\nMode +Concurrent requests +Guarded +Unguarded +Median overhead added +P95 overhead added +CPU per request added\n/);
    assert.match(text, /\nstream \(first token\) +1 +Renio fsync, guardrails redact +Renio fsync +\+1\.25 ms +\+1\.50 ms +\+50 µs\n/);
    assert.match(text, /guardrails: one Renio per setting \(off, redact\), measured in the same rounds, identical but for one policy \(bench-all-detectors\)/);
    assert.match(renderReport(report, "markdown"), /\n### Guardrails: what the policy adds/);
  });
});
