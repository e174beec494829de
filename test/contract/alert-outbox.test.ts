import assert from "node:assert/strict";
import { describe, it } from "node:test";
import type { AlertRules } from "../../src/alerts/alert-rules.ts";
import type { BudgetCharge } from "../../src/budgets/budget-charge.ts";
import { createSqlLedger } from "../../src/journal/sql-ledger.ts";
import type { JournalCompletion, JournalStart } from "../../src/shared/journal-records.ts";
import { journalStart } from "../support/journal-fixtures.ts";
import { backends } from "../support/store-targets.ts";

let seq = 0;
function start(): JournalStart {
  seq++;
  return journalStart({ id: `alert-${String(seq).padStart(6, "0")}`, receivedAt: 1_700_000_000_000 + seq, upstreamModel: "gpt-x-up" });
}

const done: JournalCompletion = { outcome: "ok", status: 200, ttfbMs: 1, totalMs: 2, upstreamMs: 1, usage: null, cost: 0.1, errorCode: null, responseBody: null };
const RULES: AlertRules = { currency: "EUR", budgets: new Map([["b1", { thresholds: [50, 80, 100], webhook: "ops" }]]), interruptedWebhook: "ops" };
const charge: BudgetCharge = { budgetId: "b1", period: "2026-12", limit: 1, mode: "observe", amount: 0.2 };

for (const backend of backends) {
  describe(`alert outbox: ${backend.name}`, () => {
    it("writes one event per threshold reached, however many batches and stores settle the spend at once", async () => {
      const target = await backend.target();
      const stores = await Promise.all([target.open("fsync", "relay-a"), target.open("fsync", "relay-b")]);
      for (const store of stores) await store.setAlertRules(RULES);
      const ledgers = stores.map((store) => createSqlLedger(store, { finishBatch: 3, finishDelayMs: 0 }));
      // 12 calls of 0.1 against a limit of 1: 120 % spent, in many small completion batches on two stores.
      await Promise.all(
        Array.from({ length: 12 }, async (_, i) => {
          const ledger = ledgers[i % 2]!;
          const s = start();
          await ledger.admit(s, [charge]);
          ledger.complete(s.id, done, [charge], 0.1);
        }),
      );
      await Promise.all(ledgers.map((ledger) => ledger.flush()));
      const events = await stores[0]!.listAlerts({ limit: 100 });
      assert.deepEqual(events.map((e) => e.threshold).sort((a, b) => Number(a) - Number(b)), [50, 80, 100]);
      for (const event of events) {
        assert.equal(event.status, "pending");
        assert.equal(event.webhook, "ops");
        const payload = event.payload as Record<string, unknown>;
        assert.equal(payload.id, event.id);
        assert.deepEqual([payload.type, payload.budget, payload.period, payload.limit, payload.currency], ["budget.threshold", "b1", "2026-12", 1, "EUR"]);
        assert.ok(Number(payload.spent) >= Number(payload.threshold) / 100 - 1e-9);
      }
      // A budget without alerts writes nothing.
      const other = { ...charge, budgetId: "b2" };
      const s = start();
      await ledgers[0]!.admit(s, [other]);
      ledgers[0]!.complete(s.id, done, [other], 5);
      await ledgers[0]!.flush();
      assert.equal((await stores[0]!.listAlerts({ limit: 100 })).length, 3);
      await Promise.all(ledgers.map((ledger) => ledger.close()));
    });

    it("claims an event for one dispatcher at a time, until its lease runs out; settles it once", async () => {
      const target = await backend.target();
      const [a, b] = await Promise.all([target.open("fsync", "relay-a"), target.open("fsync", "relay-b")]);
      await a.setAlertRules(RULES);
      const ledger = createSqlLedger(a);
      const s = start();
      await ledger.admit(s, [charge]);
      ledger.complete(s.id, done, [charge], 0.6);
      await ledger.flush();
      const now = Date.now();
      const [first, second] = await Promise.all([a.claimAlerts(now, 10, 1000), b.claimAlerts(now, 10, 1000)]);
      assert.equal(first.length + second.length, 1, "the one due event (50 %) goes to one dispatcher");
      const claimed = [...first, ...second][0]!;
      assert.equal(claimed.attempts, 1);
      assert.deepEqual(await b.claimAlerts(now + 999, 10, 1000), [], "leased");
      const again = await b.claimAlerts(now + 1000, 10, 1000);
      assert.deepEqual(again.map((e) => [e.id, e.attempts]), [[claimed.id, 2]], "claimable again once the lease ran out");
      await b.settleAlert(claimed.id, { delivered: false, error: "HTTP 500", retryAt: now + 5000 }, now + 1001);
      assert.deepEqual(await a.claimAlerts(now + 4999, 10, 1000), [], "not before its retry time");
      const third = await a.claimAlerts(now + 5000, 10, 1000);
      assert.equal(third[0]?.attempts, 3);
      await a.settleAlert(claimed.id, { delivered: true }, now + 5001);
      assert.deepEqual(await a.claimAlerts(now + 60_000, 10, 1000), []);
      const [event] = await a.listAlerts({ status: "delivered", limit: 10 });
      assert.deepEqual([event?.id, event?.attempts, event?.deliveredAt, event?.lastError], [claimed.id, 3, now + 5001, "HTTP 500"]);
      await ledger.close();
      await b.close();
    });

    it("startup recovery writes a journal.interrupted event with the reservations it left pending", async () => {
      const target = await backend.target();
      const crashed = await target.open("fsync", "relay-dead");
      const ledger = createSqlLedger(crashed);
      await ledger.admit(start(), [charge]);
      await ledger.admit(start(), []);
      await ledger.close();
      const next = await target.open("fsync", "relay-next");
      await next.setAlertRules(RULES);
      assert.equal(await next.recover(Date.now()), 2);
      const [event] = await next.listAlerts({ limit: 10 });
      assert.equal(event?.type, "journal.interrupted");
      const payload = event?.payload as Record<string, unknown>;
      assert.deepEqual([payload.entries, payload.pending, payload.reserved, payload.currency], [2, 1, 0.2, "EUR"]);
      assert.equal(await next.recover(Date.now()), 0);
      assert.equal((await next.listAlerts({ limit: 10 })).length, 1, "nothing found, nothing written");
      await next.close();
    });
  });
}
