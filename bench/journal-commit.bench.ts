/**
 * Journal commit micro-benchmarks: one admission (entry + budget reservation in one commit)
 * per backend and durability, and how group commit scales with concurrent admissions. This is
 * the PostgreSQL path of `renio serve` (and the SQL admission the store offers on SQLite too);
 * a relay owning an SQLite file admits through its admission log (admission-log.bench.ts).
 * Run: node_modules/.bin/bun bench/journal-commit.bench.ts   (starts a throwaway PostgreSQL
 * unless RENIO_TEST_PG_URL is set; RENIO_BENCH_TIME_MS sets the time per task).
 */
import { join } from "node:path";
import process from "node:process";
import { Bench } from "tinybench";
import type { StorageConfig } from "../src/config/config-schema.ts";
import type { BudgetCharge } from "../src/budgets/budget-charge.ts";
import { benchStart } from "./journal-fixtures.ts";
import { createSqlLedger, type SqlLedger } from "../src/journal/sql-ledger.ts";
import { currentRuntime } from "../src/runtime/current-runtime.ts";
import type { Durability } from "../src/journal/journal-store.ts";
import { createStore } from "../src/storage/store-open.ts";
import { pgExec, tempDir } from "../test/support/store-targets.ts";
import { testPostgresUrl } from "../test/support/postgres.ts";

const runtime = await currentRuntime();
const time = Number(process.env.RENIO_BENCH_TIME_MS ?? 1500);
const charges: BudgetCharge[] = [
  { budgetId: "total", period: "total", limit: 1e6, mode: "strict", amount: 0.001 },
  { budgetId: "project:bench", period: "2026-12", limit: 1e6, mode: "strict", amount: 0.001 },
];

async function pgDatabase(name: string): Promise<StorageConfig> {
  const base = testPostgresUrl();
  await pgExec(base, `drop database if exists ${name}`);
  await pgExec(base, `create database ${name}`);
  const url = new URL(base);
  url.pathname = `/${name}`;
  return { type: "postgres", url: url.toString(), poolSize: 4 };
}

const targets: Array<{ name: string; storage: () => Promise<StorageConfig>; durability: Durability }> = [
  { name: `sqlite/${runtime.name} fsync`, storage: async () => ({ type: "sqlite", path: join(tempDir(), "f.db") }), durability: "fsync" },
  { name: `sqlite/${runtime.name} process`, storage: async () => ({ type: "sqlite", path: join(tempDir(), "p.db") }), durability: "process" },
  { name: "postgres fsync", storage: () => pgDatabase("bench_fsync"), durability: "fsync" },
  { name: "postgres process", storage: () => pgDatabase("bench_process"), durability: "process" },
];

const bench = new Bench({ name: "journal commit", time, warmupTime: 200 });
const ledgers: SqlLedger[] = [];
const rounds = new Map<string, { concurrency: number; commits: number; admits: number }>();
for (const target of targets) {
  const ledger = createSqlLedger(await createStore(await target.storage(), { durability: target.durability, openSqlite: runtime.openSqlite }));
  ledgers.push(ledger);
  for (const concurrency of [1, 16, 64]) {
    const name = `${target.name} · ${concurrency} concurrent`;
    const round = { concurrency, commits: 0, admits: 0 };
    rounds.set(name, round);
    bench.add(name, async () => {
      const before = ledger.store.stats.admitCommits;
      const results = await Promise.all(Array.from({ length: concurrency }, () => ledger.admit(benchStart(), charges)));
      round.commits += ledger.store.stats.admitCommits - before;
      round.admits += results.length;
    });
  }
}

await bench.run();

const rows = bench.tasks.map((task) => {
  const round = rounds.get(task.name);
  const result = task.result;
  if (!round || !("latency" in result)) return { task: task.name, state: result.state };
  const meanMs = result.latency.mean;
  return {
    task: task.name,
    "round mean ms": meanMs.toFixed(3),
    "round p99 ms": (result.latency.p99 ?? Number.NaN).toFixed(3),
    "admits/s": Math.round((round.concurrency * 1000) / meanMs),
    "entries/commit": (round.admits / Math.max(1, round.commits)).toFixed(1),
  };
});
console.log(`runtime ${runtime.name} ${runtime.version}; ${time} ms per task`);
console.table(rows);
await Promise.all(ledgers.map((l) => l.close()));
process.exit(0);
