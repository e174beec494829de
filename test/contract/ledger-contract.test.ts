import assert from "node:assert/strict";
import { describe, it } from "node:test";
import type { JournalEntry } from "../../src/shared/journal-records.ts";
import { StoreUnavailableError } from "../../src/shared/relay-error.ts";
import { budgetCharge as charge, journalStart as start, okCompletion } from "../support/journal-fixtures.ts";
import { ledgerKinds, openTestLedger, type LedgerKind, type LedgerTuning, type TestLedger } from "../support/ledgers.ts";
import { allEntries } from "../support/relay-calls.ts";
import { eventually } from "../support/sse-bytes.ts";
import { tempDir } from "../support/store-targets.ts";

/**
 * The ledger contract: what the relay relies on from every ledger a user can get (the log
 * ledger of a relay owning its SQLite file, at both durabilities, and the SQL ledger on
 * PostgreSQL), run over each with the same cases.
 */

const close = 1e-9;

const open = (kind: LedgerKind, tuning?: LedgerTuning): Promise<TestLedger> => openTestLedger(kind, tempDir(), tuning);

async function entriesById(t: TestLedger): Promise<Map<string, JournalEntry>> {
  await t.ledger.flush();
  return new Map((await allEntries(t.store)).map((entry) => [entry.id, entry]));
}

async function budgetRow(t: TestLedger, budgetId = "b1"): Promise<{ spent: number; reserved: number }> {
  await t.ledger.flush();
  const row = (await t.store.budgetUsage()).find((u) => u.budgetId === budgetId);
  assert.ok(row, `budget ${budgetId} has a row`);
  return { spent: row.spent, reserved: row.reserved };
}

function assertAbout(actual: number, expected: number, what: string): void {
  assert.ok(Math.abs(actual - expected) < close, `${what}: ${actual}, expected ${expected}`);
}

for (const { kind, name, skip } of ledgerKinds) {
  if (skip) {
    // Named with its reason: test runners list a skipped test, not why.
    it(`ledger contract: ${name}: skipped, ${skip}`, { skip }, () => undefined);
    continue;
  }
  describe(`ledger contract: ${name}`, () => {
    it("admits within a strict budget and refuses beyond it: zero overshoot under 200 concurrent admissions", async () => {
      const t = await open(kind);
      const amounts = Array.from({ length: 200 }, (_, i) => 0.01 + (i % 7) * 0.005);
      const limit = 1;
      const results = await Promise.all(amounts.map((amount) => t.ledger.admit(start(), [charge(amount, { limit })]).then((r) => ({ r, amount }))));
      const accepted = results.filter((x) => x.r.admitted).reduce((sum, x) => sum + x.amount, 0);
      assert.ok(accepted <= limit + close, `accepted ${accepted} > ${limit}`);
      for (const { r, amount } of results) {
        if (!r.admitted) assert.ok(r.remaining < amount - close, `refusal of ${amount} with ${r.remaining} remaining`);
      }
      assert.ok(limit - accepted < Math.min(...amounts) + close, "a call that fitted was refused");
      const row = await budgetRow(t);
      assertAbout(row.reserved, accepted, "reserved");
      const refused = [...(await entriesById(t)).values()].filter((e) => e.outcome === "refused");
      assert.equal(refused.length, results.filter((x) => !x.r.admitted).length, "every refusal is in the journal");
      await t.close();
    });

    it("settles a completed call to its actual cost and releases the rest of its reservation, once", async () => {
      const t = await open(kind);
      const calls = [start(), start(), start()];
      for (const s of calls) assert.ok((await t.ledger.admit(s, [charge(0.3)])).admitted);
      t.ledger.complete(calls[0]!.id, okCompletion({ cost: 0.1 }), [charge(0.3)], 0.1);
      t.ledger.complete(calls[1]!.id, okCompletion({ outcome: "client_aborted", usage: null, cost: 0.3 }), [charge(0.3)], 0.3);
      t.ledger.complete(calls[1]!.id, okCompletion({ cost: 0.25 }), [charge(0.3)], 0.25); // a duplicate never settles twice
      const row = await budgetRow(t);
      const byId = await entriesById(t);
      // Which of the two completions is kept is not part of the contract; that only one is, is.
      const twice = byId.get(calls[1]!.id);
      assert.ok(twice?.cost === 0.3 || twice?.cost === 0.25, `one of its completions: ${twice?.cost}`);
      assertAbout(row.spent, 0.1 + twice.cost, "spent (each call settled once, as its entry says)");
      assertAbout(row.reserved, 0.3, "reserved (the open call)");
      const entry = byId.get(calls[0]!.id);
      assert.equal(entry?.outcome, "ok");
      assert.equal(entry?.status, 200);
      assert.deepEqual([entry?.inputTokens, entry?.cachedInputTokens, entry?.outputTokens, entry?.cost, entry?.reservedCost], [10, 2, 20, 0.1, 0.3]);
      assert.equal(typeof entry?.finishedAt, "number");
      assert.ok((await t.ledger.admit(start(), [charge(1 - row.spent - row.reserved)])).admitted, "what settling released is available again");
      assert.ok(!(await t.ledger.admit(start(), [charge(0.01)])).admitted, "and no more");
      await t.close();
    });

    it("records refusals: over budget (reserving nothing on any budget) and before admission", async () => {
      const t = await open(kind);
      assert.deepEqual(await t.ledger.admit(start(), [charge(0.75)]), { admitted: true, remaining: { budgetId: "b1", amount: 0.25 } });
      const overBudget = start();
      assert.deepEqual(await t.ledger.admit(overBudget, [charge(0.5), charge(0.1, { budgetId: "b0", limit: 5 })]), { admitted: false, budgetId: "b1", limit: 1, remaining: 0.25 });
      assert.ok((await t.ledger.admit(start(), [charge(5, { mode: "observe" })])).admitted, "observe never refuses");
      const badKey = start({ keyId: null });
      t.ledger.refuse({ start: badKey, status: 401, errorCode: "invalid_api_key" });
      const byId = await entriesById(t);
      assert.deepEqual([byId.get(overBudget.id)?.outcome, byId.get(overBudget.id)?.status, byId.get(overBudget.id)?.errorCode], ["refused", 429, "budget_exceeded"]);
      assert.deepEqual([byId.get(badKey.id)?.outcome, byId.get(badKey.id)?.status, byId.get(badKey.id)?.errorCode], ["refused", 401, "invalid_api_key"]);
      assert.equal((await budgetRow(t, "b0")).reserved, 0, "a refused call reserves nothing on any budget");
      assertAbout((await budgetRow(t, "b1")).reserved, 5.75, "b1 reserved");
      await t.close();
    });

    it("fails closed when an admission cannot be made durable: the call is refused and its reservation given back", async () => {
      const t = await open(kind);
      await t.ledger.admit(start(), [charge(0.5)]);
      const heal = await t.breakAdmissionWrite();
      await assert.rejects(t.ledger.admit(start(), [charge(0.5)]), StoreUnavailableError);
      await heal();
      assert.ok((await t.ledger.admit(start(), [charge(0.5)])).admitted, "the refused call's 0.5 was given back");
      assert.equal((await entriesById(t)).size, 2, "the refused call is not in the journal: it was never sent");
      assertAbout((await budgetRow(t)).reserved, 1, "reserved");
      await t.close();
    });

    it("fails closed while the database refuses writes: unready and refusing calls, then ready again with nothing admitted lost", async () => {
      const t = await open(kind);
      const before = start();
      assert.ok((await t.ledger.admit(before, [charge(0.2)])).admitted);
      const heal = await t.refuseDatabaseWrites();
      assert.equal(await t.ledger.ready(), false);
      await assert.rejects(t.ledger.admit(start(), [charge(0.2)]), StoreUnavailableError);
      await heal();
      // A probe racing an apply that failed during the outage may still answer false; the next applies it.
      assert.ok(await eventually(() => t.ledger.ready(), 10_000), "ready again once the database takes writes");
      const after = start();
      assert.ok((await t.ledger.admit(after, [charge(0.2)])).admitted);
      const byId = await entriesById(t);
      assert.deepEqual([...byId.keys()].sort(), [before.id, after.id].sort());
      assertAbout((await budgetRow(t)).reserved, 0.4, "reserved");
      await t.close();
    });

    it("backpressure: while the database is behind, new admissions wait, and proceed once it catches up", async () => {
      const t = await open(kind, { maxBacklog: 2 });
      await t.ledger.admit(start(), [charge(0.01)]);
      await t.ledger.flush(); // the budget row exists
      const held = await t.holdDatabase();
      for (let i = 0; i < held.through; i++) assert.ok((await t.ledger.admit(start(), [charge(0.01)])).admitted);
      let admitted: boolean | undefined;
      const waiting = t.ledger.admit(start(), [charge(0.01)]).then((a) => (admitted = a.admitted));
      // A write through the ledger (and a database round trip) that does not wait for the budget
      // rows: had the admission not waited, it would have been decided by now.
      assert.equal(await t.ledger.ready(), true);
      assert.equal(admitted, undefined, "the admission waits for the database");
      await held.release();
      await waiting;
      assert.equal(admitted, true);
      assert.equal((await entriesById(t)).size, held.through + 2);
      assertAbout((await budgetRow(t)).reserved, 0.01 * (held.through + 2), "reserved");
      await t.close();
    });

    it("replay after a crash: every admitted entry is there once, settled calls stay settled, open ones interrupted with their reservation charged once", async () => {
      const crashed = await open(kind);
      const [a, b, c, refused] = [start(), start(), start(), start()];
      await crashed.ledger.admit(a, [charge(0.2)]);
      await crashed.ledger.admit(b, [charge(0.2)]);
      crashed.ledger.complete(a.id, okCompletion({ cost: 0.1 }), [charge(0.2)], 0.1);
      await crashed.ledger.flush(); // a, b and a's settlement reached the database
      await crashed.ledger.admit(c, [charge(0.2)]);
      assert.ok(!(await crashed.ledger.admit(refused, [charge(0.6)])).admitted, "0.5 taken: 0.6 does not fit");

      const next = await crashed.crashAndRestart();
      assert.equal(next.recovered, 2, "b and c never finished");
      const byId = await entriesById(next);
      assert.equal(byId.size, 4, "each entry once");
      assert.deepEqual([byId.get(a.id)?.outcome, byId.get(a.id)?.cost], ["ok", 0.1]);
      for (const unfinished of [b, c]) {
        const entry = byId.get(unfinished.id);
        assert.deepEqual([entry?.outcome, entry?.reconcile, entry?.reservedCost], ["interrupted", "pending", 0.2]);
        assert.equal(typeof entry?.finishedAt, "number");
      }
      assert.equal(byId.get(refused.id)?.outcome, "refused");
      const row = await budgetRow(next);
      assertAbout(row.spent, 0.1, "spent");
      assertAbout(row.reserved, 0.4, "reserved (b and c, not doubled by the replay)");
      assert.ok((await next.ledger.admit(start(), [charge(0.5)])).admitted, "what is left fits");
      assert.ok(!(await next.ledger.admit(start(), [charge(0.01)])).admitted, "interrupted reservations still count until reconciled");
      await next.close();
    });

    it("shutdown: close writes every queued completion and lets an admission in flight commit; admissions after it are refused", async () => {
      const t = await open(kind, { untilFlush: true });
      const s = start();
      assert.ok((await t.ledger.admit(s, [charge(0.4)])).admitted);
      t.ledger.complete(s.id, okCompletion({ cost: 0.1 }), [charge(0.4)], 0.1);
      const inFlight = t.ledger.admit(start(), []);
      await t.close();
      assert.ok((await inFlight).admitted, "an admission in flight at close still commits");
      await assert.rejects(t.ledger.admit(start(), []), (error: unknown) => {
        assert.ok(error instanceof StoreUnavailableError);
        assert.match(error.message, /shutting down/);
        return true;
      });
      const next = await t.reopen();
      assert.equal(next.recovered, 1, "only the call that never completed is unfinished");
      const byId = await entriesById(next);
      assert.deepEqual([byId.get(s.id)?.outcome, byId.get(s.id)?.cost], ["ok", 0.1]);
      const row = await budgetRow(next);
      assertAbout(row.spent, 0.1, "spent");
      assertAbout(row.reserved, 0, "reserved");
      await next.close();
    });
  });
}
