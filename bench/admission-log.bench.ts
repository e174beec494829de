/**
 * The admission path `renio serve` runs on SQLite: decide in memory, append to the admission
 * log, wait for the write (group commit). Admission latency at 1, 16 and 64 concurrent calls
 * per durability, and the disk's own floor: one O_DSYNC write of 600 bytes back to back, and
 * alone after 3 ms idle (what a call at concurrency 1 meets).
 * Run: node_modules/.bin/bun bench/admission-log.bench.ts   (RENIO_BENCH_TIME_MS: time per task)
 */
import { constants, openSync, writeSync } from "node:fs";
import { join } from "node:path";
import process from "node:process";
import { Bench } from "tinybench";
import type { BudgetCharge } from "../src/budgets/budget-charge.ts";
import type { Ledger } from "../src/journal/ledger.ts";
import { benchStart } from "./journal-fixtures.ts";
import { openJournalLog } from "../src/journal/admission-log/journal-log.ts";
import { admissionLogDir } from "../src/journal/admission-log/log-segments.ts";
import { createLogLedger } from "../src/journal/log-ledger.ts";
import { currentRuntime } from "../src/runtime/current-runtime.ts";
import type { Durability } from "../src/journal/journal-store.ts";
import { createThreadStore } from "../src/storage/store-thread.ts";
import { tempDir } from "../test/support/store-targets.ts";

const runtime = await currentRuntime();
const time = Number(process.env.RENIO_BENCH_TIME_MS ?? 1500);
const charges: BudgetCharge[] = [{ budgetId: "total", period: "total", limit: 1e6, mode: "strict", amount: 0.001 }];
const completion = { outcome: "ok", status: 200, ttfbMs: 3, totalMs: 4, upstreamMs: 3, usage: { inputTokens: 10, cachedInputTokens: 0, outputTokens: 20 }, cost: 0.0001, errorCode: null, responseBody: null } as const;

const bench = new Bench({ name: "admission log", time, warmupTime: 200 });
const ledgers: Ledger[] = [];
for (const durability of ["fsync", "process"] as Durability[]) {
  const path = join(tempDir(), "renio.db");
  const store = await createThreadStore(runtime.storeWorker(), { type: "sqlite", path }, { durability, instanceId: "bench" });
  const ledger = createLogLedger(store, openJournalLog(admissionLogDir(path), durability), [], { instanceId: "bench" });
  ledgers.push(ledger);
  for (const concurrency of [1, 16, 64]) {
    bench.add(`${durability} · ${concurrency} concurrent admissions`, async () => {
      const calls = Array.from({ length: concurrency }, benchStart);
      await Promise.all(calls.map((s) => ledger.admit(s, charges)));
      for (const s of calls) ledger.complete(s.id, completion, charges, 0.0001);
    });
  }
}

const disk = openSync(join(tempDir(), "disk.bin"), constants.O_RDWR | constants.O_CREAT | constants.O_DSYNC, 0o600);
writeSync(disk, new Uint8Array(4 << 20), 0, 4 << 20, 0);
const record = new Uint8Array(600).fill(0x61);
let offset = 0;
const dsyncWrite = () => {
  writeSync(disk, record, 0, record.byteLength, offset);
  offset = (offset + record.byteLength) % (4 << 20);
};
bench.add("disk · O_DSYNC 600 B write, back to back", dsyncWrite);

await bench.run();

/** The same write after 3 ms idle (what a call at concurrency 1 meets), timed alone. */
const afterIdle: number[] = [];
for (let i = 0; i < 300; i++) {
  await new Promise((resolve) => setTimeout(resolve, 3));
  const started = performance.now();
  dsyncWrite();
  afterIdle.push(performance.now() - started);
}
afterIdle.sort((a, b) => a - b);
console.log(`runtime ${runtime.name} ${runtime.version}; ${time} ms per task`);
console.table(
  bench.tasks.map((task) => {
    const result = task.result;
    if (!("latency" in result)) return { task: task.name, state: result.state };
    return { task: task.name, "median ms": (result.latency.p50 ?? Number.NaN).toFixed(3), "p99 ms": (result.latency.p99 ?? Number.NaN).toFixed(3), "mean ms": result.latency.mean.toFixed(3) };
  }),
);
const at = (q: number) => (afterIdle[Math.floor(q * (afterIdle.length - 1))] as number).toFixed(3);
console.log(`disk · O_DSYNC 600 B write after 3 ms idle: median ${at(0.5)} ms, p99 ${at(0.99)} ms (${afterIdle.length} writes)`);
await Promise.all(ledgers.map((l) => l.close()));
process.exit(0);
