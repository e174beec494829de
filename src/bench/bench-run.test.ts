import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { createProgress } from "./bench-progress.ts";
import { runMeasurements, share } from "./bench-run.ts";
import { chatHandler, startTestServer, type TestServer } from "../../test/support/bench-test-support.ts";
import type { ProcessProbe } from "./process-usage.ts";

describe("share", () => {
  it("splits requests over rounds so they sum to the total", () => {
    for (const [total, rounds] of [[3000, 10], [7, 3], [5, 5], [1, 1]] as const) {
      const parts = Array.from({ length: rounds }, (_, round) => share(total, rounds, round));
      assert.equal(parts.reduce((a, b) => a + b, 0), total);
      assert.ok(Math.max(...parts) - Math.min(...parts) <= 1);
    }
  });
});

describe("runMeasurements", () => {
  let direct: TestServer;
  let relay: TestServer;
  before(async () => {
    direct = await startTestServer(chatHandler);
    relay = await startTestServer(chatHandler);
  });
  after(async () => {
    await direct.close();
    await relay.close();
  });

  it("warms up, alternates rounds, and reports every point with CPU and memory from the probe", async () => {
    let cpu = 0;
    const probe: ProcessProbe = {
      cpuSeconds: () => (cpu += 0.001),
      rss: () => 40 * 1024 * 1024,
      peakRss: () => 50 * 1024 * 1024,
      resetPeak: () => true,
      threadCpuSeconds: () => new Map([["bun", cpu], ["Worker", cpu / 2]]),
    };
    const modes = await runMeasurements({
      options: { concurrency: [1, 3], requests: 12, warmup: 2, rounds: 3, modes: ["json", "stream"], model: "m" },
      directUrl: `${direct.url}/v1/chat/completions`,
      directHeaders: [["authorization", "Bearer k"]],
      // A relay that writes its journal once per two requests it has seen.
      relays: [{ id: "renio", label: "Renio", url: `${relay.url}/v1/chat/completions`, headers: [["authorization", "Bearer k"]], probe, journalWrites: () => Promise.resolve(relay.seen.length / 2) }],
      progress: createProgress(process.stderr, true),
      signal: AbortSignal.timeout(20_000),
    });
    assert.deepEqual(modes.map((mode) => mode.mode), ["json", "stream"]);
    for (const mode of modes) {
      assert.deepEqual(mode.points.map((point) => point.concurrency), [1, 3]);
      for (const point of mode.points) {
        assert.equal(point.direct.samples, 12);
        const renio = point.relays[0]!;
        assert.equal(renio.latency.samples, 12);
        assert.ok(Math.abs(renio.overhead.median - (renio.latency.median - point.direct.median)) < 1e-9);
        assert.ok(renio.cpuPerRequestSeconds! > 0);
        assert.deepEqual(Object.keys(renio.cpuPerRequestByThread ?? {}), ["bun", "Worker"]);
        assert.equal(renio.requestsPerJournalWrite, 2, "the measured requests over the writes made meanwhile (warm-up excluded)");
        assert.equal(renio.rssIdleBytes, 40 * 1024 * 1024);
        assert.equal(renio.rssPeakBytes, 50 * 1024 * 1024);
      }
    }
    // 2 modes × 2 points × (2 warm-up + 12 measured) each way.
    assert.equal(direct.seen.length, 56);
    assert.equal(relay.seen.length, 56);
  });

  it("measures two keys of one relay process interleaved call by call, in one turn, and gives each its own samples", async () => {
    const before = relay.seen.length;
    const [mode] = await runMeasurements({
      options: { concurrency: [1], requests: 6, warmup: 2, rounds: 2, modes: ["json"], model: "m" },
      directUrl: `${direct.url}/v1/chat/completions`,
      directHeaders: [],
      relays: [
        { id: "renio", label: "Renio", url: `${relay.url}/v1/chat/completions`, headers: [["authorization", "Bearer limited"]] },
        { id: "renio-other-key", label: "Renio, another key", url: `${relay.url}/v1/chat/completions`, headers: [["authorization", "Bearer other"]], sharesProcessWith: "renio" },
      ],
      progress: createProgress(process.stderr, true),
      signal: AbortSignal.timeout(20_000),
    });
    const [limited, other] = mode!.points[0]!.relays;
    assert.equal(limited!.latency.samples, 6);
    assert.equal(other!.latency.samples, 6);
    // Warm-up and both rounds: the keys take turns, never two calls of one key in a row.
    const keys = relay.seen.slice(before).map((request) => request.headers.authorization);
    assert.equal(keys.length, 16);
    keys.forEach((key, i) => assert.equal(key, i % 2 === 0 ? "Bearer limited" : "Bearer other", `call ${i}`));
  });

  it("fails fast when every warm-up request fails", async () => {
    await assert.rejects(
      runMeasurements({
        options: { concurrency: [1], requests: 4, warmup: 2, rounds: 2, modes: ["json"], model: "m" },
        directUrl: `${direct.url}/v1/chat/completions`,
        directHeaders: [],
        relays: [{ id: "renio", label: "Renio", url: "http://127.0.0.1:1/v1/chat/completions", headers: [] }],
        progress: createProgress(process.stderr, true),
        signal: AbortSignal.timeout(20_000),
      }),
      /renio .*every warm-up request failed/,
    );
  });
});
