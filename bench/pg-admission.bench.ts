/**
 * PostgreSQL admission, before and after: the SQL transaction (begin, terms, rows FOR UPDATE,
 * one update per row, the entry insert, commit; store-admit.ts) against the one statement
 * (renio_admit, store-admit-postgres.ts), side by side on one throwaway PostgreSQL, per
 * durability, for one call and for a group-committed batch of 16 and 64. The two ways
 * alternate commit by commit (a shared machine's load drifts: sequential tasks would compare
 * different moments). Round trips are counted by the wire-protocol proxy the tests use (the
 * connection goes through it in both cases).
 * Run: node_modules/.bin/bun bench/pg-admission.bench.ts [commits per way, default 400]
 * (a throwaway PostgreSQL unless RENIO_TEST_PG_URL is set).
 */
import process from "node:process";
import { Kysely } from "kysely";
import type { BudgetCharge } from "../src/budget/budget-charge.ts";
import { budgetKey } from "../src/budget/budget-key.ts";
import { createHotStatements } from "../src/storage/hot-statements.ts";
import { admitInTransaction } from "../src/storage/store-admit.ts";
import { admitInOneStatement } from "../src/storage/store-admit-postgres.ts";
import type { AdmitItem, Durability } from "../src/storage/store.ts";
import { migrate } from "../src/storage/store-migrations.ts";
import { createPostgresDialect } from "../src/storage/store-postgres.ts";
import type { Database } from "../src/storage/store-schema.ts";
import { inWriteTransaction } from "../src/storage/store-transaction.ts";
import { summarize } from "../src/bench/bench-stats.ts";
import { benchStart } from "./journal-fixtures.ts";
import { pgExec } from "../test/support/store-targets.ts";
import { testPostgresUrl } from "../test/support/postgres.ts";
import { startRoundTripCounter } from "../test/support/pg-round-trips.ts";

const commits = Number(process.argv[2] ?? 400);
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

const dbs: Array<Kysely<Database>> = [];
const rows: Array<Record<string, string>> = [];
for (const durability of ["fsync", "process"] as Durability[]) {
  const dialect = createPostgresDialect({ url: counter.url, poolSize: 2, durability });
  const db = new Kysely<Database>({ dialect: dialect.kysely });
  dbs.push(db);
  await migrate(db, dialect);
  const hot = createHotStatements(db, dialect.lockRows);
  const known = new Set<string>();
  await admitInOneStatement(db, items(1), known, Date.now(), null); // creates the budget rows
  for (const charge of charges) known.add(budgetKey(charge.budgetId, charge.period));
  const ways = [
    { way: "transaction", admit: (batch: AdmitItem[]) => inWriteTransaction(db, dialect, (trx, run) => admitInTransaction(trx, run, batch, hot, known, Date.now(), null)) },
    { way: "one statement", admit: (batch: AdmitItem[]) => admitInOneStatement(db, batch, known, Date.now(), null) },
  ];
  for (const size of [1, 16, 64]) {
    const samples = ways.map(() => [] as number[]);
    const roundTrips = ways.map(() => 0);
    for (let i = 0; i < commits + 20; i++) {
      for (const [index, { admit }] of ways.entries()) {
        const batch = items(size);
        const before = counter.roundTrips;
        const began = performance.now();
        await admit(batch);
        if (i < 20) continue; // warm-up
        samples[index]!.push(performance.now() - began);
        roundTrips[index]! += counter.roundTrips - before;
      }
    }
    for (const [index, { way }] of ways.entries()) {
      const summary = summarize(samples[index]!);
      rows.push({
        commit: `${durability} · ${size} per commit · ${way}`,
        "median ms": summary.median.toFixed(3),
        "p95 ms": summary.p95.toFixed(3),
        "µs per admission (median)": ((summary.median * 1000) / size).toFixed(0),
        "round trips": (roundTrips[index]! / commits).toFixed(1),
      });
    }
  }
}

console.log(`runtime ${process.versions.bun ? `bun ${process.versions.bun}` : `deno ${process.versions.deno ?? "?"}`}; ${commits} commits per way and point, alternating; PostgreSQL on loopback`);
console.table(rows);
await Promise.all(dbs.map((db) => db.destroy()));
await counter.close();
process.exit(0);
