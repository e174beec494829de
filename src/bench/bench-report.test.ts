import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { renderReport, type BenchReport, type PointResult } from "./bench-report.ts";
import { summarize } from "./bench-stats.ts";

const point = (concurrency: number, withProbe: boolean): PointResult => ({
  concurrency,
  direct: summarize([2, 2.1, 2.2]),
  relays: [
    {
      id: "renio",
      label: "Renio",
      latency: summarize([2.5, 2.6, 2.7]),
      overhead: { median: 0.5, p95: 0.5 },
      ...(withProbe ? { cpuPerRequestSeconds: 0.00009, cpuPerRequestByThread: { bun: 0.00006, Worker: 0.00003, "Bun Pool 0": 0.0000002 }, requestsPerJournalWrite: 4.126, rssIdleBytes: 40 * 2 ** 20, rssPeakBytes: 60 * 2 ** 20 } : {}),
    },
    { id: "passthrough", label: "passthrough", latency: summarize([2.3, 2.4, 2.5]), overhead: { median: 0.3, p95: 0.31 } },
  ],
});

const report = (withProbe: boolean): BenchReport => ({
  renioVersion: "0.1.0",
  startedAt: "2026-01-01T00:00:00.000Z",
  durationSeconds: 12,
  method: { requests: 3, warmup: 1, rounds: 1, concurrency: [1, 16], mock: { latencyMs: 2, chunkIntervalMs: 1, chunks: 8 }, model: "mock-gpt" },
  machine: { cpuModel: "Test CPU", cores: 2, memoryGiB: 4, os: "Linux" },
  runtime: "bun 1.4.5",
  relay: { journal: "fsync", budget: "strict", storage: "sqlite" },
  baseline: "passthrough",
  modes: [
    { mode: "json", points: [point(1, withProbe), point(16, withProbe)] },
    { mode: "stream", points: [point(1, withProbe)] },
  ],
});

describe("renderReport", () => {
  it("prints both tables with the published columns, the passthrough next to Renio, and the setup", () => {
    const text = renderReport(report(true), "text");
    assert.match(text, /^Non-streaming: end-to-end latency of a complete request\n\nConcurrent requests  Direct \(median\)  Via Renio \(median\)  Median overhead  P95 overhead  Passthrough median overhead  Passthrough P95 overhead\n/);
    assert.match(text, /Streaming: time to first token[^\n]*\n\nConcurrent requests  Direct \(median\)  Via Renio \(median\)  First-token overhead  P95 overhead/);
    assert.match(text, /\n16 +2\.10 ms +2\.60 ms +0\.50 ms +0\.50 ms +0\.30 ms +0\.31 ms\n/);
    assert.match(text, /Renio CPU per request +Renio RSS idle +Renio RSS peak\n[- ]+\n1 +90 µs +40\.0 MB +60\.0 MB/);
    assert.match(text, /\nRenio CPU per request by thread at 16: bun 60 µs, Worker 30 µs\n/, "an idle pool thread (0.2 µs) is left out");
    assert.match(text, /\nRenio requests per journal write at 1: 4\.13\nRenio requests per journal write at 16: 4\.13\n/);
    assert.match(text, /machine: Test CPU, 2 cores/);
    assert.match(text, /runtime: bun 1\.4\.5/);
    assert.match(text, /journal on \(durability fsync\), budget strict/);
  });

  it("leaves the resource table out when nothing was probed (a --target)", () => {
    assert.doesNotMatch(renderReport(report(false), "text"), /CPU per request/);
  });

  it("renders Markdown headings and pipe tables, and JSON that parses back", () => {
    const markdown = renderReport(report(true), "markdown");
    assert.match(markdown, /^### Non-streaming/);
    assert.match(markdown, /\n\| Concurrent requests \| Direct \(median\) \| Via Renio \(median\) \|/);
    const parsed = JSON.parse(renderReport(report(true), "json")) as BenchReport;
    assert.equal(parsed.modes[0]!.points[1]!.relays[0]!.cpuPerRequestSeconds, 0.00009);
  });

  it("renders a soak as one row per sample with the RSS growth from the first sample to the last", () => {
    const soak = {
      concurrency: 64, durationSeconds: 120, sampleSeconds: 60, rssAfterWarmupBytes: 90 * 2 ** 20, rssGrowth: 1 / 104,
      samples: [
        { elapsedSeconds: 60.2, requests: 9000, errors: 0, overhead: { median: 1.5, p95: 3 }, rssBytes: 104 * 2 ** 20, cpuPerRequestSeconds: 0.0004 },
        { elapsedSeconds: 120, requests: 8900, errors: 1, overhead: { median: 1.6, p95: 3.2 }, rssBytes: 105 * 2 ** 20, cpuPerRequestSeconds: 0.00041 },
      ],
    };
    const text = renderReport({ ...report(false), modes: [], soak }, "text");
    assert.match(text, /^Soak: 120 s at concurrency 64, non-streaming\n\nElapsed +Requests +Errors +Median overhead +P95 overhead +CPU per request +RSS\n/);
    assert.match(text, /\n60 s +9000 +0 +1\.50 ms +3\.00 ms +400 µs +104\.0 MB\n120 s +8900 +1 +1\.60 ms +3\.20 ms +410 µs +105\.0 MB\n/);
    assert.match(text, /RSS growth from the first sample to the last: 104\.0 MB → 105\.0 MB \(1\.0 %; target < 10 %\); after the warm-up requests 90\.0 MB/);
    assert.match(text, /method: soak: after 1 warm-up, direct and Renio rounds of 1280 requests in turn for 120 s, sampled every 60 s/);
  });

  it("gives each model of a --model list its own row with its overhead, and says what direct is for a translated one", () => {
    const models = [{ name: "mock-gpt", translated: false }, { name: "mock-claude-translated", translated: true }];
    const byModel: PointResult = {
      concurrency: 1,
      direct: summarize([2, 2.1, 2.2]),
      relays: [
        { id: "renio", label: "Renio mock-gpt", model: "mock-gpt", latency: summarize([2.5, 2.6, 2.7]), overhead: { median: 0.5, p95: 0.5 } },
        { id: "renio@mock-claude-translated", label: "Renio mock-claude-translated", model: "mock-claude-translated", translated: true, latency: summarize([2.8, 2.9, 3]), overhead: { median: 0.8, p95: 0.8 } },
      ],
    };
    const text = renderReport({ ...report(false), baseline: undefined, relay: { journal: "fsync", models, budget: "strict", storage: "sqlite" }, mockCalls: { openai: 8, anthropic: 4 }, modes: [{ mode: "json", points: [byModel] }] }, "text");
    assert.match(text, /\nConcurrent requests +Via +Direct \(median\) +Via \(median\) +Median overhead +P95 overhead\n/);
    assert.match(text, /\n1 +Renio mock-gpt +2\.10 ms +2\.60 ms +0\.50 ms +0\.50 ms\n1 +Renio mock-claude-translated \(translated\) +2\.10 ms +2\.90 ms +0\.80 ms +0\.80 ms\n/);
    assert.match(text, /models: one Renio per model, measured in the same rounds: mock-gpt \(passthrough[^;]*\); mock-claude-translated \(translated: the OpenAI call becomes an Anthropic Messages call/);
    assert.match(text, /direct, for every model: the client's own OpenAI request straight to the mock's \/v1\/chat\/completions, so a translated row's overhead includes translating/);
    assert.match(text, /the mock received 8 OpenAI-format and 4 Anthropic-format calls/);
  });

  it("lists failed requests", () => {
    const failing = report(false);
    const first = failing.modes[0]!.points[0]!;
    const broken: PointResult = { ...first, relays: [{ ...first.relays[0]!, latency: summarize([2], 3), firstError: "HTTP 502: bad" }] };
    const text = renderReport({ ...failing, modes: [{ mode: "json", points: [broken] }] }, "text");
    assert.match(text, /errors at 1: Renio 3 \(HTTP 502: bad\)/);
  });
});
