import assert from "node:assert/strict";
import { join } from "node:path";
import { after, before, describe, test } from "node:test";
import pg from "pg";
import type { BudgetCharge } from "../src/budget/budget-charge.ts";
import type { NewBudget } from "../src/budget/budget-definition.ts";
import { createSqlLedger } from "../src/journal/sql-ledger.ts";
import type { AdmitItem, Store } from "../src/storage/store.ts";
import { createStore } from "../src/storage/store-open.ts";
import { budgetCharge, journalStart } from "./support/journal-fixtures.ts";
import { startRoundTripCounter, type RoundTripCounter } from "./support/pg-round-trips.ts";
import { backends, openSqlite, tempDir } from "./support/store-targets.ts";

const postgres = backends.find((backend) => backend.name === "postgres")!;

/** A fresh PostgreSQL database reached through a round-trip counting proxy, and a store on it. */
async function countedStore(): Promise<{ store: Store; counter: RoundTripCounter; directUrl: string }> {
  const target = await postgres.target();
  if (target.storage.type !== "postgres") throw new Error("expected PostgreSQL");
  const counter = await startRoundTripCounter(target.storage.url);
  const store = await createStore({ ...target.storage, url: counter.url }, { durability: "fsync", openSqlite });
  return { store, counter, directUrl: target.storage.url };
}

/** Rows read on a separate connection (not through the proxy): what is committed. */
async function committed<R>(url: string, text: string): Promise<R[]> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    return (await client.query(text)).rows as R[];
  } finally {
    await client.end();
  }
}

const item = (...charges: BudgetCharge[]): AdmitItem => ({ start: journalStart(), charges });

describe("PostgreSQL admission: one round trip, the commit included", () => {
  let store: Store;
  let counter: RoundTripCounter;
  let directUrl: string;

  before(async () => {
    ({ store, counter, directUrl } = await countedStore());
    await store.createBudget({ id: "team", scope: { project: "p1" }, period: "total", limit: 1, mode: "strict", paused: false });
  });
  after(async () => {
    await store.close();
    await counter.close();
  });

  test("an admission against a config budget and a stored one, creating their rows, is one round trip and committed", async () => {
    await store.ping(); // a pooled connection exists (its setup is not the admission's)
    counter.reset();
    const first = item(budgetCharge(0.25, { budgetId: "total-cfg", limit: 10 }), budgetCharge(0.25, { budgetId: "team", stored: true }));
    const [admission] = await store.admitBatch([first]);
    assert.deepEqual([counter.roundTrips, counter.connections], [1, 0]);
    assert.deepEqual(admission, { admitted: true, remaining: { budgetId: "team", amount: 0.75 } });
    const [entry] = await committed<{ outcome: string; reserved_cost: number; reserved_charges: string }>(directUrl, `select outcome, reserved_cost, reserved_charges from journal_entry where id = '${first.start.id}'`);
    assert.deepEqual(entry, { outcome: "started", reserved_cost: 0.25, reserved_charges: JSON.stringify([["total-cfg", "total", 250_000_000], ["team", "total", 250_000_000]]) });
    const rows = await committed<{ budget_id: string; reserved_nanos: string }>(directUrl, "select budget_id, reserved_nanos from budget_usage order by budget_id");
    assert.deepEqual(rows, [{ budget_id: "team", reserved_nanos: "250000000" }, { budget_id: "total-cfg", reserved_nanos: "250000000" }]);
  });

  test("a refusal is one round trip too, and its entry is committed refused with nothing reserved", async () => {
    counter.reset();
    const refused = item(budgetCharge(0.9, { budgetId: "team", stored: true }));
    const [admission] = await store.admitBatch([refused]);
    assert.equal(counter.roundTrips, 1);
    assert.deepEqual(admission, { admitted: false, budgetId: "team", limit: 1, remaining: 0.75 });
    const [entry] = await committed<{ outcome: string; status: number; error_code: string; reserved_charges: string | null }>(
      directUrl,
      `select outcome, status, error_code, reserved_charges from journal_entry where id = '${refused.start.id}'`,
    );
    assert.deepEqual(entry, { outcome: "refused", status: 429, error_code: "budget_exceeded", reserved_charges: null });
  });

  test("concurrent admissions through the ledger share a commit, each commit one round trip", async () => {
    const ledger = createSqlLedger(store);
    counter.reset();
    const before = store.stats.admitCommits;
    const admissions = await Promise.all(Array.from({ length: 32 }, () => ledger.admit(journalStart(), [budgetCharge(0.001, { budgetId: "total-cfg", limit: 10 })])));
    const commits = store.stats.admitCommits - before;
    assert.ok(admissions.every((admission) => admission.admitted));
    assert.ok(commits < 32, `${commits} commits for 32 admissions`);
    assert.equal(counter.roundTrips, commits);
  });
});

test("two stores admitting at once, charges in opposite orders on rows neither has seen, neither deadlock nor lose a reservation", async () => {
  const target = await postgres.target();
  const [a, b] = [await target.open(), await target.open()];
  try {
    const charge = (id: string) => budgetCharge(0.001, { budgetId: id, limit: 10 });
    const batches = Array.from({ length: 20 }, (_, i) => (i % 2 === 0 ? [item(charge("x"), charge("y")), item(charge("z"))] : [item(charge("z"), charge("y"), charge("x"))]));
    const results = await Promise.all(batches.map((batch, i) => (i % 4 < 2 ? a : b).admitBatch(batch)));
    assert.ok(results.flat().every((admission) => admission.admitted));
    const usage = (await a.budgetUsage()).map((row) => [row.budgetId, Math.round(row.reserved * 1e9)]).sort();
    // x and y: 10 batches of 1 + 10 of 1 = 20 reservations each; z: 10 + 10 = 20.
    assert.deepEqual(usage, [["x", 20_000_000], ["y", 20_000_000], ["z", 20_000_000]]);
  } finally {
    await a.close();
    await b.close();
  }
});

/** Stored budgets as both stores hold them in the scenario. */
const STORED: NewBudget[] = [
  { id: "s-strict", scope: { project: "p1" }, period: "total", limit: 1, mode: "strict", paused: false },
  { id: "s-paused", scope: { project: "p1" }, period: "total", limit: 2, mode: "strict", paused: false },
  { id: "s-gone", scope: { project: "p1" }, period: "total", limit: 0.1, mode: "strict", paused: false },
  { id: "s-observed", scope: { project: "p1" }, period: "total", limit: 0.2, mode: "strict", paused: false },
];

/**
 * Batches covering the rule's cases: several charges per call, a tight strict budget filled
 * within one batch, observe past its limit, a config limit changed between batches, stored
 * budgets whose terms differ from the quote (limit, mode), paused, and deleted.
 */
function scenario(): AdmitItem[][] {
  const cfg = (amount: number, limit = 1, mode: "strict" | "observe" = "strict") => budgetCharge(amount, { budgetId: "cfg", limit, mode });
  const day = (amount: number) => budgetCharge(amount, { budgetId: "cfg-day", period: "2026-12-04", limit: 0.5 });
  const stored = (id: string, amount: number, limit: number, mode: "strict" | "observe" = "strict") => budgetCharge(amount, { budgetId: id, limit, mode, stored: true });
  return [
    [item(cfg(0.3), day(0.2)), item(cfg(0.3), day(0.2)), item(cfg(0.3), day(0.2)), item(), item(cfg(0.05))],
    [item(cfg(0.2, 1.5)), item(cfg(5, 1, "observe")), item(cfg(0.01))],
    [item(stored("s-strict", 0.4, 5)), item(stored("s-strict", 0.4, 5)), item(stored("s-strict", 0.4, 5, "observe"))],
    [item(cfg(0.01), stored("s-paused", 0.01, 2)), item(stored("s-gone", 0.5, 0.1), cfg(0.01)), item(stored("s-observed", 0.5, 0.2))],
    [item(day(0.05), stored("s-paused", 0.01, 3), stored("s-strict", 0.01, 1))],
  ];
}

/** Runs the scenario on a store: returns every admission, the budget rows and every entry's outcome columns, comparable across stores. */
async function runScenario(store: Store): Promise<unknown> {
  for (const budget of STORED) await store.createBudget(budget);
  const admissions: unknown[] = [];
  const batches = scenario();
  for (const [index, batch] of batches.entries()) {
    if (index === 3) {
      await store.updateBudget("s-paused", { paused: true });
      await store.deleteBudget("s-gone");
      await store.updateBudget("s-observed", { mode: "observe" });
    }
    admissions.push(await store.admitBatch(batch));
  }
  const rows = (await store.budgetUsage()).sort((a, b) => (a.budgetId < b.budgetId ? -1 : 1));
  const entries = await store.listJournal({ limit: 100 });
  const order = batches.flat().map((admitted) => admitted.start.id);
  const byId = new Map(entries.entries.map((entry) => [entry.id, entry]));
  const outcomes = order.map((id) => {
    const entry = byId.get(id)!;
    return [entry.outcome, entry.status, entry.errorCode, entry.reservedCost];
  });
  return { admissions, rows, outcomes };
}

test("the PostgreSQL statement decides exactly as the SQL transaction does (the SQLite store), case by case", async () => {
  const sqlite = await createStore({ type: "sqlite", path: join(tempDir(), "same.db") }, { durability: "process", openSqlite });
  const { store: pgStore, counter } = await countedStore();
  try {
    const expected = await runScenario(sqlite);
    counter.reset();
    const actual = await runScenario(pgStore);
    assert.deepEqual(actual, expected);
    const shape = expected as { admissions: Array<Array<{ admitted: boolean; paused?: true }>> };
    const flat = shape.admissions.flat();
    // The scenario does exercise every branch: admitted, over the limit, paused.
    assert.ok(flat.some((admission) => admission.admitted) && flat.some((admission) => !admission.admitted && !admission.paused) && flat.some((admission) => admission.paused));
  } finally {
    await sqlite.close();
    await pgStore.close();
    await counter.close();
  }
});
