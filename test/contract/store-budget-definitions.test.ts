import assert from "node:assert/strict";
import { describe, it } from "node:test";
import type { BudgetCharge } from "../../src/budgets/budget-charge.ts";
import type { NewBudget } from "../../src/budgets/budget-definition.ts";
import { createSqlLedger } from "../../src/journal/sql-ledger.ts";
import type { JournalStart } from "../../src/shared/journal-records.ts";
import { RelayError } from "../../src/shared/relay-error.ts";
import { journalStart } from "../support/journal-fixtures.ts";
import { backends } from "../support/store-targets.ts";

const TEAM: NewBudget = { id: "team", scope: { project: "p1" }, period: "month", limit: 2, mode: "strict", paused: false };

let seq = 0;
function start(): JournalStart {
  seq++;
  return journalStart({ id: `def-${String(seq).padStart(6, "0")}`, receivedAt: 1_700_000_000_000 + seq });
}

/** A charge of the stored budget `team` quoted at `limit` (what a relay that has not seen a change still holds). */
function staleCharge(amount: number, limit: number): BudgetCharge {
  return { budgetId: "team", period: "2026-12", limit, mode: "strict", amount, stored: true };
}

async function rejectsWith(work: Promise<unknown>, status: number, code: string): Promise<void> {
  await assert.rejects(work, (error: unknown) => error instanceof RelayError && error.status === status && error.code === code);
}

for (const backend of backends) {
  describe(`stored budgets: ${backend.name}`, () => {
    it("creates, lists, changes and deletes; every change moves the version by one", async () => {
      const store = await (await backend.target()).open();
      try {
        assert.equal(await store.budgetsVersion(), 0);
        const created = await store.createBudget(TEAM);
        assert.deepEqual({ ...created, createdAt: 0, updatedAt: 0 }, { ...TEAM, createdAt: 0, updatedAt: 0 });
        assert.deepEqual(await store.listBudgets(), [created]);
        await rejectsWith(store.createBudget({ ...TEAM, limit: 5 }), 409, "budget_exists");
        const { before, after } = await store.updateBudget("team", { limit: 0.000000001, paused: true });
        assert.deepEqual([before.limit, before.paused, after.limit, after.paused, after.mode], [2, false, 0.000000001, true, "strict"]);
        assert.deepEqual((await store.listBudgets())[0], after);
        await rejectsWith(store.updateBudget("nope", { limit: 1 }), 404, "budget_not_found");
        assert.equal(await store.budgetsVersion(), 2);
        assert.deepEqual(await store.deleteBudget("team"), after);
        assert.deepEqual(await store.listBudgets(), []);
        await rejectsWith(store.deleteBudget("team"), 404, "budget_not_found");
        await rejectsWith(store.updateBudget("team", { limit: 1 }), 404, "budget_not_found");
        const again = await store.createBudget({ ...TEAM, scope: "total", limit: 7 });
        assert.deepEqual((await store.listBudgets()).map((b) => [b.id, b.scope, b.limit]), [["team", "total", 7]]);
        assert.equal(again.paused, false);
        assert.equal(await store.budgetsVersion(), 4);
      } finally {
        await store.close();
      }
    });

    it("concurrent changes from two stores each move the version", async () => {
      const target = await backend.target();
      const [a, b] = [await target.open(), await target.open()];
      try {
        await a.createBudget(TEAM);
        await Promise.all(Array.from({ length: 10 }, (_, i) => (i % 2 === 0 ? a : b).updateBudget("team", { limit: i + 1 })));
        assert.equal(await a.budgetsVersion(), 11);
        assert.equal(await b.budgetsVersion(), 11);
      } finally {
        await a.close();
        await b.close();
      }
    });

    it("an admission decides a stored budget's charge by the store's terms, not the charge's", async () => {
      const store = await (await backend.target()).open();
      const ledger = createSqlLedger(store);
      try {
        await store.createBudget(TEAM);
        assert.equal((await ledger.admit(start(), [staleCharge(1.5, 2)])).admitted, true);
        await store.updateBudget("team", { limit: 1 });
        // Quoted at the old limit 2 (0.4 would fit): decided at 1, under which 1.5 is already reserved.
        const lowered = await ledger.admit(start(), [staleCharge(0.4, 2)]);
        assert.deepEqual(lowered.admitted ? null : [lowered.limit, lowered.remaining], [1, 0]);
        await store.updateBudget("team", { limit: 2, paused: true });
        const paused = await ledger.admit(start(), [staleCharge(0.1, 2)]);
        assert.equal(!paused.admitted && paused.paused, true);
        await store.updateBudget("team", { paused: false, mode: "observe", limit: 0 });
        assert.equal((await ledger.admit(start(), [staleCharge(5, 2)])).admitted, true, "observe in force: admitted past the limit");
        await store.updateBudget("team", { mode: "strict" });
        await store.deleteBudget("team");
        assert.equal((await ledger.admit(start(), [staleCharge(5, 0)])).admitted, true, "a deleted budget no longer refuses");
        // A config budget's charge (not `stored`) keeps its own terms even if a store row has its id.
        await store.createBudget({ ...TEAM, id: "cfg", limit: 0 });
        assert.equal((await ledger.admit(start(), [{ budgetId: "cfg", period: "2026-12", limit: 10, mode: "strict", amount: 1 }])).admitted, true);
        await ledger.flush();
        const refused = (await store.listJournal({ limit: 10, outcome: "refused" })).entries.map((e) => e.errorCode).sort();
        assert.deepEqual(refused, ["budget_exceeded", "budget_paused"]);
      } finally {
        await ledger.close();
      }
    });
  });
}
