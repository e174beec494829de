/**
 * PostgreSQL admission, before and after: the SQL transaction (begin, terms, rows FOR UPDATE,
 * one update per row, the entry insert, commit; store-admit.ts) against the one statement
 * (renio_admit, store-admit-postgres.ts), side by side on one throwaway PostgreSQL, per
 * durability, for one call and for a group-committed batch of 16. Round trips are counted by
 * the wire-protocol proxy the tests use (the connection goes through it in both cases).
 * Run: node_modules/.bin/bun bench/pg-admission.bench.ts   (a throwaway PostgreSQL unless
 * RENIO_TEST_PG_URL is set; RENIO_BENCH_TIME_MS sets the time per task, default 1500).
 */
import process from "node:process";
import { Kysely } from "kysely";
import { Bench } from "tinybench";
import type { BudgetCharge } from "../src/budget/budget-charge.ts";
import { createHotStatements } from "../src/storage/hot-statements.ts";
import { admitInTransaction } from "../src/storage/store-admit.ts";
import { admitInOneStatement } from "../src/storage/store-admit-postgres.ts";
import type { AdmitItem, Durability } from "../src/storage/store.ts";
import { migrate } from "../src/storage/store-migrations.ts";
import { createPostgresDialect } from "../src/storage/store-postgres.ts";
import type { Database } from "../src/storage/store-schema.ts";
import { inWriteTransaction } from "../src/storage/store-transaction.ts";
import { benchStart } from "./journal-fixtures.ts";
import { pgExec } from "../test/support/store-targets.ts";
import { testPostgresUrl } from "../test/support/postgres.ts";
import { startRoundTripCounter } from "../test/support/pg-round-trips.ts";

const time = Number(process.env.RENIO_BENCH_TIME_MS ?? 1500);
const charges: BudgetCharge[] = [
  { budgetId: "total", period: "total", limit: 1e6, mode: "strict", amount: 0.001 },
  { budgetId: "project:bench", period: "2026-12", limit: 1e6, mode: "strict", amount: 0.001 },
];
const items = (count: number): AdmitItem[] => Array.from({ length: count }, () => ({ start: benchStart(), charges }));

const base = testPostgresUrl();
await pgExec(base, "drop database if exists bench_pg_admission");
await pgExec(base, "create database bench_pg_admission");
const url = new URL(base);
url.pathname = "/bench_pg_admission";
const counter = await startRoundTripCounter(url.toString());

const bench = new Bench({ name: "postgres admission", time, warmupTime: 200 });
const dbs: Array<Kysely<Database>> = [];
const perTask = new Map<string, { roundTrips: number; commits: number }>();
for (const durability of ["fsync", "process"] as Durability[]) {
  const dialect = createPostgresDialect({ url: counter.url, poolSize: 2, durability });
  const db = new Kysely<Database>({ dialect: dialect.kysely });
  dbs.push(db);
  await migrate(db, dialect);
  const hot = createHotStatements(db, dialect.lockRows);
  const known = new Set<string>();
  await admitInOneStatement(db, items(1), known, Date.now(), null); // creates the budget rows
  const ways = {
    transaction: (batch: AdmitItem[]) => inWriteTransaction(db, dialect, (trx, run) => admitInTransaction(trx, run, batch, hot, known, Date.now(), null)),
    "one statement": (batch: AdmitItem[]) => admitInOneStatement(db, batch, known, Date.now(), null),
  };
  for (const size of [1, 16]) {
    for (const [way, admit] of Object.entries(ways)) {
      const name = `${durability} · ${way} · ${size} per commit`;
      const tally = { roundTrips: 0, commits: 0 };
      perTask.set(name, tally);
      bench.add(name, async () => {
        const batch = items(size);
        const before = counter.roundTrips;
        await admit(batch);
        tally.roundTrips += counter.roundTrips - before;
        tally.commits++;
      });
    }
  }
}

await bench.run();

const rows = bench.tasks.map((task) => {
  const result = task.result;
  const tally = perTask.get(task.name);
  if (!tally || !("latency" in result)) return { task: task.name, state: result.state };
  return {
    task: task.name,
    "commit mean ms": result.latency.mean.toFixed(3),
    "commit median ms": (result.latency.p50 ?? Number.NaN).toFixed(3),
    "commit p99 ms": (result.latency.p99 ?? Number.NaN).toFixed(3),
    "round trips/commit": (tally.roundTrips / Math.max(1, tally.commits)).toFixed(1),
  };
});
console.log(`runtime ${process.versions.bun ? `bun ${process.versions.bun}` : `deno ${process.versions.deno ?? "?"}`}; ${time} ms per task; PostgreSQL on loopback`);
console.table(rows);
await Promise.all(dbs.map((db) => db.destroy()));
await counter.close();
process.exit(0);
