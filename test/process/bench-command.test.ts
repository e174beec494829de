import assert from "node:assert/strict";
import { execFile, execFileSync } from "node:child_process";
import { fileURLToPath } from "node:url";
import { describe, it } from "node:test";
import type { BenchReport } from "../../src/bench/bench-report.ts";
import type { CapacityReport } from "../../src/bench/capacity-report.ts";

const ROOT = fileURLToPath(new URL("../../", import.meta.url));
const BUN = `${ROOT}node_modules/.bin/bun`;

/** Runs the real CLI from source on Bun; resolves with exit code, stdout and stderr. */
function renio(args: string[], timeoutMs: number): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    execFile(BUN, ["src/main-bun.ts", ...args], { cwd: ROOT, timeout: timeoutMs, maxBuffer: 16 * 1024 * 1024 }, (error, stdout, stderr) => {
      const code = error === null ? 0 : typeof error.code === "number" ? error.code : 1;
      resolve({ code, stdout, stderr });
    });
  });
}

describe("renio bench (end to end, real processes on loopback)", () => {
  it("measures direct and via-Renio at each point and reports JSON with CPU and memory", { timeout: 90_000 }, async () => {
    const { code, stdout, stderr } = await renio(["bench", "--requests", "40", "--warmup", "5", "--concurrency", "1,4", "--json"], 80_000);
    assert.equal(code, 0, stderr);
    const report = JSON.parse(stdout) as BenchReport;
    assert.deepEqual(report.modes.map((mode) => mode.mode), ["json", "stream"]);
    assert.deepEqual(report.relay, { journal: "fsync", budget: "strict", storage: "sqlite (temporary directory)" });
    assert.equal(report.method.requests, 40);
    assert.ok(report.machine.cores >= 1);
    for (const mode of report.modes) {
      assert.deepEqual(mode.points.map((point) => point.concurrency), [1, 4]);
      for (const point of mode.points) {
        assert.equal(point.direct.samples, 40);
        assert.equal(point.direct.errors, 0);
        assert.ok(point.direct.median > 0);
        const [renio] = point.relays;
        assert.equal(renio?.id, "renio");
        assert.equal(renio.latency.samples, 40);
        assert.equal(renio.latency.errors, 0);
        assert.ok(renio.latency.median > 0);
        assert.ok(Number.isFinite(renio.overhead.median) && Number.isFinite(renio.overhead.p95));
        if (process.platform === "linux") {
          assert.ok(renio.cpuPerRequestSeconds !== undefined && renio.cpuPerRequestSeconds >= 0);
          assert.ok(renio.rssIdleBytes! > 0 && renio.rssPeakBytes! >= renio.rssIdleBytes! / 2);
        }
      }
    }
  });

  it("measures the disk floor and runs Renio fsync and process side by side with their difference against it", { timeout: 90_000 }, async () => {
    const { code, stdout, stderr } = await renio(["bench", "--requests", "20", "--warmup", "2", "--rounds", "1", "--concurrency", "1", "--mode", "json", "--journal", "fsync,process", "--json"], 80_000);
    assert.equal(code, 0, stderr);
    const report = JSON.parse(stdout) as BenchReport;
    assert.equal(report.diskFloor?.recordBytes, 256);
    assert.ok(report.diskFloor!.latency.samples > 0 && report.diskFloor!.latency.median >= 0);
    assert.deepEqual(report.relay?.journals, ["fsync", "process"]);
    const [point] = report.modes[0]!.points;
    assert.deepEqual(point!.relays.map((relay) => [relay.id, relay.latency.samples, relay.latency.errors]), [["renio-fsync", 20, 0], ["renio-process", 20, 0]]);
    assert.ok(report.diskFloor!.cpuPerWriteSeconds! > 0, "the CPU of one durable write");
    // One call at a time: each admission is its own write (a completion left alone is written by itself too).
    for (const relay of point!.relays) assert.ok(relay.requestsPerJournalWrite! > 0 && relay.requestsPerJournalWrite! <= 1, `${relay.id}: ${relay.requestsPerJournalWrite}`);
    const [cost] = report.durableWrite!;
    assert.equal(cost!.fsyncMinusProcessMs, point!.relays[0]!.overhead.median - point!.relays[1]!.overhead.median);
    assert.equal(cost!.ratio, cost!.fsyncMinusProcessMs / report.diskFloor!.latency.median);
  });

  it("measures Renio on a throwaway PostgreSQL beside SQLite, fsync and process, and labels the storage", { timeout: 120_000 }, async () => {
    const { code, stdout, stderr } = await renio(
      ["bench", "--storage", "sqlite,postgres", "--journal", "fsync,process", "--requests", "12", "--warmup", "2", "--rounds", "1", "--concurrency", "2", "--mode", "json", "--json"],
      110_000,
    );
    assert.equal(code, 0, stderr);
    const report = JSON.parse(stdout) as BenchReport;
    assert.match(report.relay!.storage, /^sqlite \(temporary directory\) and postgres 15\.\d+ \(throwaway server, temporary directory, fsync on\)$/);
    const [point] = report.modes[0]!.points;
    assert.deepEqual(
      point!.relays.map((relay) => [relay.id, relay.latency.samples, relay.latency.errors]),
      [["renio-sqlite-fsync", 12, 0], ["renio-sqlite-process", 12, 0], ["renio-postgres-fsync", 12, 0], ["renio-postgres-process", 12, 0]],
    );
    assert.deepEqual(report.durableWrite!.map((cost) => cost.storage), ["sqlite", "postgres"]);
    const pg = point!.relays.filter((relay) => relay.id.startsWith("renio-postgres-"));
    assert.equal(report.durableWrite![1]!.fsyncMinusProcessMs, pg[0]!.overhead.median - pg[1]!.overhead.median);
  });

  it("measures a passthrough and a translated model side by side, the translated one through the mock's Anthropic wire", { timeout: 90_000 }, async () => {
    const { code, stdout, stderr } = await renio(["bench", "--model", "mock-gpt,mock-claude-translated", "--requests", "10", "--warmup", "2", "--rounds", "2", "--concurrency", "1", "--json"], 80_000);
    assert.equal(code, 0, stderr);
    const report = JSON.parse(stdout) as BenchReport;
    assert.deepEqual(report.relay?.models, [{ name: "mock-gpt", translated: false }, { name: "mock-claude-translated", translated: true }]);
    assert.deepEqual(report.modes.map((mode) => mode.mode), ["json", "stream"]);
    for (const mode of report.modes) {
      const [point] = mode.points;
      assert.equal(point!.direct.errors, 0);
      assert.deepEqual(
        point!.relays.map((relay) => [relay.id, relay.model, relay.translated ?? false, relay.latency.samples, relay.latency.errors]),
        [["renio", "mock-gpt", false, 10, 0], ["renio@mock-claude-translated", "mock-claude-translated", true, 10, 0]],
      );
      for (const relay of point!.relays) assert.equal(relay.overhead.median, relay.latency.median - point!.direct.median);
    }
    // Per mode, 2 warm-up + 10 measured each: direct and Renio mock-gpt reach the OpenAI wire,
    // Renio mock-claude-translated only the Anthropic one (so it really was translated).
    assert.deepEqual(report.mockCalls, { openai: 2 * 2 * 12, anthropic: 2 * 12 });
  });

  it("measures a Renio with guardrails beside the same Renio without, in both modes, and what the policy adds", { timeout: 90_000 }, async () => {
    const { code, stdout, stderr } = await renio(["bench", "--guardrails", "off,redact", "--requests", "10", "--warmup", "2", "--rounds", "2", "--concurrency", "1", "--json"], 80_000);
    assert.equal(code, 0, stderr);
    const report = JSON.parse(stdout) as BenchReport;
    assert.deepEqual(report.relay?.guardrails, { settings: ["off", "redact"], policy: { id: "bench-all-detectors", detectors: ["pii", "credentials"] } });
    assert.deepEqual(report.modes.map((mode) => mode.mode), ["json", "stream"]);
    for (const mode of report.modes) {
      const [point] = mode.points;
      assert.equal(point!.direct.errors, 0);
      assert.deepEqual(
        point!.relays.map((relay) => [relay.id, relay.label, relay.guardrails, relay.latency.samples, relay.latency.errors]),
        [["renio", "Renio", undefined, 10, 0], ["renio-guardrails-redact", "Renio, guardrails redact", { action: "redact", unguarded: "renio" }, 10, 0]],
      );
      const [plain, guarded] = point!.relays;
      const cost = report.guardrailsCost!.find((candidate) => candidate.mode === mode.mode)!;
      assert.deepEqual([cost.concurrency, cost.relay, cost.unguarded], [1, "renio-guardrails-redact", "renio"]);
      assert.equal(cost.medianMs, guarded!.overhead.median - plain!.overhead.median);
      assert.equal(cost.p95Ms, guarded!.overhead.p95 - plain!.overhead.p95);
    }
    assert.equal(report.guardrailsCost!.length, 2);
  });

  it("soaks for a bounded time, sampling the relay's RSS, CPU and overhead in each interval", { timeout: 60_000 }, async () => {
    const { code, stdout, stderr } = await renio(["bench", "--duration", "3s", "--sample-seconds", "1", "--concurrency", "2", "--warmup", "5", "--json"], 50_000);
    assert.equal(code, 0, stderr);
    const report = JSON.parse(stdout) as BenchReport;
    assert.deepEqual(report.modes, []);
    const soak = report.soak!;
    assert.deepEqual([soak.durationSeconds, soak.sampleSeconds, soak.concurrency], [3, 1, 2]);
    assert.ok(soak.samples.length >= 1);
    for (const sample of soak.samples) {
      assert.ok(sample.requests > 0);
      assert.equal(sample.errors, 0);
      assert.ok(Number.isFinite(sample.overhead.median));
    }
    if (process.platform === "linux") {
      const [first, last] = [soak.samples[0]!, soak.samples.at(-1)!];
      assert.ok(soak.rssAfterWarmupBytes! > 0 && last.rssBytes! > 0);
      // Growth runs from the first sample (the heap settled under the load) to the last.
      assert.equal(soak.rssGrowth, soak.samples.length > 1 ? (last.rssBytes! - first.rssBytes!) / first.rssBytes! : undefined);
      assert.ok(last.cpuPerRequestSeconds! > 0);
    }
  });

  it("refuses bad arguments with exit code 2 and one line", { timeout: 30_000 }, async () => {
    const { code, stdout, stderr } = await renio(["bench", "--mode", "sse"], 20_000);
    assert.equal(code, 2);
    assert.equal(stdout, "");
    assert.match(stderr, /^renio bench: --mode must be one of json, stream, both/);
  });

  it("--mode capacity: direct, Renio fsync and off, the passthrough, the Go proxy and nginx side by side, each holding the streams", { timeout: 180_000 }, async () => {
    const have = (tool: string) => execFileSync("bash", ["-c", `command -v ${tool} || true`], { encoding: "utf8" }).trim() !== "";
    const compare = ["go", "nginx"].filter(have);
    const args = ["bench", "--mode", "capacity", "--concurrency", "3,6", "--requests", "12", "--chunks", "3", "--chunk-interval-ms", "20", "--baseline", "passthrough", "--json"];
    const { code, stdout, stderr } = await renio(compare.length > 0 ? [...args, "--compare", compare.join(",")] : args, 170_000);
    assert.equal(code, 0, stderr);
    const report = JSON.parse(stdout) as CapacityReport;
    assert.deepEqual(report.method.mock, { latencyMs: 2, chunkIntervalMs: 20, chunks: 3 });
    const ids = ["renio-fsync", "renio-off", "passthrough", ...compare];
    assert.deepEqual(report.subjects.map((s) => s.id), ids);
    assert.deepEqual(report.points.map((p) => [p.concurrency, p.callsPerWorker]), [[3, 4], [6, 2]]);
    for (const point of report.points) {
      for (const measure of [point.direct, ...point.subjects]) {
        assert.equal(measure.errors, 0, `${measure.label}: ${measure.firstError}`);
        assert.equal(measure.calls, 12);
        assert.ok(measure.firstToken.median > 0 && measure.gap.median > 10, `${measure.label} streamed its chunks ~20 ms apart`);
      }
      for (const measure of point.subjects) if (process.platform === "linux") assert.ok(measure.cpuSeconds! >= 0 && measure.rssPeakBytes! > 0, measure.label);
    }
  });
});
