import assert from "node:assert/strict";
import { describe, test } from "node:test";
import type { Admission, BudgetCharge } from "../../src/budgets/budget-charge.ts";
import type { Store } from "../../src/storage/store.ts";
import { budgetCharge, journalStart } from "../support/journal-fixtures.ts";
import { backends } from "../support/store-targets.ts";
import type { AdmitItem } from "../../src/journal/journal-store.ts";

/**
 * PostgreSQL admits a batch whose every call fits in one statement (src/storage/statements/admit-statement.ts)
 * and decides any other batch call by call in the admission transaction. Both must admit and
 * refuse exactly as the transaction does: compared here with SQLite's transaction, batch by batch.
 */

const postgres = backends.find((backend) => backend.name === "postgres")!;
const sqlite = backends[0]!;

const items = (charges: ReadonlyArray<readonly BudgetCharge[]>): AdmitItem[] => charges.map((c) => ({ start: journalStart(), charges: c }));
const a = (amount: number): BudgetCharge => budgetCharge(amount, { budgetId: "a", limit: 1 });
const b = (amount: number): BudgetCharge => budgetCharge(amount, { budgetId: "b", limit: 2 });
const watch = (amount: number): BudgetCharge => budgetCharge(amount, { budgetId: "w", limit: 0.1, mode: "observe" });

/** Rounds the remaining amounts (the two paths add in different orders). */
const rounded = (admissions: readonly Admission[]) =>
  admissions.map((admission) =>
    admission.admitted
      ? { ...admission, ...(admission.remaining ? { remaining: { ...admission.remaining, amount: Math.round(admission.remaining.amount * 1e6) / 1e6 } } : {}) }
      : { ...admission, remaining: Math.round(admission.remaining * 1e6) / 1e6 },
  );

describe("admission in one statement (PostgreSQL)", () => {
  test("batches that fit are admitted in one statement, the others in the transaction; both paths decide as SQLite's transaction does", async () => {
    const pg = await (await postgres.target()).open("fsync", "relay-1");
    const reference = await (await sqlite.target()).open("fsync", "relay-1");
    const both = async (batch: AdmitItem[]) => {
      const [got, expected] = await Promise.all([pg.admitBatch(batch), reference.admitBatch(batch.map((item) => ({ ...item, start: journalStart() })))]);
      assert.deepEqual(rounded(got), rounded(expected));
      return got;
    };
    try {
      await both(items([[a(0.1), b(0.1), watch(0.05)]])); // creates the rows: the transaction
      assert.equal(pg.stats.statementAdmissions, 0, "rows not known yet: decided in the transaction");
      const fitting = await both(items([[a(0.2), b(0.2)], [a(0.2)], [b(0.5), watch(0.2)], []]));
      assert.deepEqual(fitting.map((admission) => admission.admitted), [true, true, true, true]);
      assert.equal(pg.stats.statementAdmissions, 1, "a batch that fits: one statement");
      // a has 0.5 reserved of 1: 0.3 fits, 0.4 more does not, 0.2 still does.
      const mixed = await both(items([[a(0.3)], [a(0.4), b(0.1)], [a(0.2)]]));
      assert.deepEqual(mixed.map((admission) => admission.admitted), [true, false, true]);
      assert.equal(pg.stats.statementAdmissions, 1, "a batch with a call that does not fit: the transaction");
      const [rowsPg, rowsSqlite] = await Promise.all([pg.budgetUsage(), reference.budgetUsage()]);
      const byKey = (rows: typeof rowsPg) => Object.fromEntries(rows.map((row) => [row.budgetId, [Math.round(row.reserved * 1e6), Math.round(row.spent * 1e6), row.limit]]));
      assert.deepEqual(byKey(rowsPg), byKey(rowsSqlite), "the same reservations on every row");
      assert.deepEqual(byKey(rowsPg)["a"], [1e6, 0, 1], "a is full: 0.1 + 0.2 + 0.2 + 0.3 + 0.2");
      const journal = await pg.listJournal({ limit: 100 });
      assert.equal(journal.entries.length, 8);
      assert.equal(journal.entries.filter((entry) => entry.outcome === "started").length, 7);
      assert.equal(journal.entries.filter((entry) => entry.outcome === "refused").length, 1);
    } finally {
      await Promise.all([pg.close(), reference.close()]);
    }
  });

  test("two relays admitting at once, with charges in opposite orders on the same rows: no deadlock, no row over its limit", async () => {
    const target = await postgres.target();
    const relays: Store[] = [await target.open("fsync", "relay-1"), await target.open("fsync", "relay-2")];
    try {
      // Each relay learns the rows exist (its first batch goes through the transaction).
      for (const relay of relays) await relay.admitBatch(items([[a(0), b(0)]]));
      const batches = Array.from({ length: 40 }, (_, i) => {
        const charges: BudgetCharge[] = i % 2 === 0 ? [a(0.03), b(0.05)] : [b(0.05), a(0.03)];
        return relays[i % 2]!.admitBatch(items([charges, charges, charges]));
      });
      const admitted = (await Promise.all(batches)).flat().filter((admission) => admission.admitted).length;
      const rows = Object.fromEntries((await relays[0]!.budgetUsage()).map((row) => [row.budgetId, row]));
      assert.ok(rows["a"]!.reserved <= 1 + 1e-9 && rows["b"]!.reserved <= 2 + 1e-9, JSON.stringify(rows));
      assert.equal(admitted, 33, "a fits 33 calls of 0.03 (b, 40 of 0.05): exactly as many admitted");
      assert.ok(Math.abs(rows["a"]!.reserved - 0.99) < 1e-9, `a reserved ${rows["a"]!.reserved}`);
      assert.ok(relays.every((relay) => relay.stats.statementAdmissions > 0), "both relays used the one statement");
    } finally {
      await Promise.all(relays.map((relay) => relay.close()));
    }
  });
});
