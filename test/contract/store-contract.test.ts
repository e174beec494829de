import { describe, it } from "node:test";
import assert from "node:assert/strict";
import type { Admission, BudgetCharge } from "../../src/budgets/budget-charge.ts";
import type { JournalStart } from "../../src/shared/journal-records.ts";
import { createSqlLedger } from "../../src/journal/sql-ledger.ts";
import type { LogRecord } from "../../src/journal/admission-log/admission-log-record.ts";
import { pruneOlderThan } from "../../src/journal/journal-retention.ts";
import { SchemaTooNewError } from "../../src/storage/store-errors.ts";
import { latestSchemaVersion } from "../../src/storage/store-migrations.ts";
import { RelayError, StoreUnavailableError } from "../../src/shared/relay-error.ts";
import { budgetCharge, journalStart, okCompletion } from "../support/journal-fixtures.ts";
import { backends } from "../support/store-targets.ts";
import { StoreOpenError } from "../../src/shared/store-open-error.ts";

let seq = 0;
/** Ids and arrival times in creation order (the listing test sorts by them). */
const start = (overrides: Partial<JournalStart> = {}): JournalStart => {
  seq++;
  return journalStart({ id: `req-${String(seq).padStart(6, "0")}`, receivedAt: 1_700_000_000_000 + seq, ...overrides });
};

const charge = (amount: number, limit = 1, budgetId = "b1", mode: "strict" | "observe" = "strict"): BudgetCharge => budgetCharge(amount, { budgetId, period: "2026-12", limit, mode });

const done = okCompletion();

const close = 1e-9;

for (const backend of backends) {
  describe(`store contract: ${backend.name}`, () => {
    it("migrates idempotently, and concurrently", async () => {
      const target = await backend.target();
      const [a, b] = await Promise.all([target.open(), target.open()]);
      const c = await target.open();
      for (const store of [a, b, c]) assert.equal(await store.ping(), true);
      await Promise.all([a.close(), b.close(), c.close()]);
    });

    it("admits, completes and settles in a round trip", async () => {
      const store = await (await backend.target()).open();
      const ledger = createSqlLedger(store);
      const s = start({ stream: true });
      const admission = await ledger.admit(s, [charge(0.5, 2), charge(0.5, 1, "b2")]);
      assert.deepEqual(admission, { admitted: true, remaining: { budgetId: "b2", amount: 0.5 } });
      const started = (await store.listJournal({ limit: 10 })).entries[0];
      assert.equal(started?.outcome, "started");
      assert.equal(started?.stream, true);
      assert.equal(started?.finishedAt, null);
      assert.equal(started?.reservedCost, 0.5);
      ledger.complete(s.id, done, [charge(0.5, 2), charge(0.5, 1, "b2")], 0.2);
      await ledger.flush();
      const entry = (await store.listJournal({ limit: 10 })).entries[0];
      assert.equal(entry?.outcome, "ok");
      assert.equal(entry?.status, 200);
      assert.deepEqual([entry?.inputTokens, entry?.cachedInputTokens, entry?.outputTokens, entry?.cost], [10, 2, 20, 0.2]);
      assert.equal(typeof entry?.finishedAt, "number");
      const usage = await store.budgetUsage();
      assert.deepEqual(usage.map((u) => [u.budgetId, u.limit, u.spent, u.reserved, u.remaining]), [
        ["b1", 2, 0.2, 0, 1.8],
        ["b2", 1, 0.2, 0, 0.8],
      ]);
      await ledger.close();
    });

    it("group-commits concurrent admissions", async () => {
      const store = await (await backend.target()).open();
      const ledger = createSqlLedger(store);
      await ledger.admit(start(), []);
      const before = store.stats.admitCommits;
      const results = await Promise.all(Array.from({ length: 64 }, () => ledger.admit(start(), [charge(0.001, 10)])));
      assert.ok(results.every((r) => r.admitted));
      const commits = store.stats.admitCommits - before;
      assert.ok(commits >= 1 && commits <= 2, `64 admissions took ${commits} commits`);
      assert.equal((await store.listJournal({ limit: 100 })).entries.length, 65);
      await ledger.close();
    });

    it("refuses a charge that does not fit, with the exact remaining amount", async () => {
      const store = await (await backend.target()).open();
      const ledger = createSqlLedger(store);
      assert.deepEqual(await ledger.admit(start(), [charge(0.75)]), { admitted: true, remaining: { budgetId: "b1", amount: 0.25 } });
      const refusedStart = start();
      assert.deepEqual(await ledger.admit(refusedStart, [charge(0.5), charge(0.1, 5, "b0")]), { admitted: false, budgetId: "b1", limit: 1, remaining: 0.25 });
      assert.ok((await ledger.admit(start(), [charge(5, 1, "b1", "observe")])).admitted, "observe never refuses");
      const refused = (await store.listJournal({ limit: 10, outcome: "refused" })).entries;
      assert.deepEqual(refused.map((e) => [e.id, e.status, e.errorCode]), [[refusedStart.id, 429, "budget_exceeded"]]);
      const [b0, b1] = await store.budgetUsage();
      assert.equal(b0?.reserved, 0, "a refused call reserves nothing on any budget");
      assert.equal(b1?.reserved, 5.75);
      await ledger.close();
    });

    it("never overshoots: 200 concurrent admissions against a limit covering ~50, on two stores", async () => {
      const target = await backend.target();
      const ledgers = [createSqlLedger(await target.open(), { maxAdmitBatch: 16 }), createSqlLedger(await target.open(), { maxAdmitBatch: 16 })];
      const amounts = Array.from({ length: 200 }, (_, i) => 0.01 + (i % 7) * 0.005);
      const limit = 1;
      const results = await Promise.all(amounts.map((amount, i) => ledgers[i % 2]!.admit(start(), [charge(amount, limit)]).then((r) => ({ r, amount }))));
      const accepted = results.filter((x) => x.r.admitted).reduce((sum, x) => sum + x.amount, 0);
      assert.ok(accepted <= limit + close, `accepted ${accepted} > ${limit}`);
      const admittedCount = results.filter((x) => x.r.admitted).length;
      assert.ok(admittedCount >= 35 && admittedCount <= 100, `admitted ${admittedCount}`);
      for (const { r, amount } of results) {
        if (!r.admitted) assert.ok(r.remaining < amount - close, `refusal of ${amount} with ${r.remaining} remaining`);
      }
      const smallest = Math.min(...amounts);
      assert.ok(limit - accepted < smallest + close || results.every((x) => x.r.admitted), "a call that fitted was refused");
      const [row] = await ledgers[0]!.store.budgetUsage();
      assert.ok(Math.abs((row?.reserved ?? -1) - accepted) < close);
      await Promise.all(ledgers.map((l) => l.close()));
    });

    it("settles reservations to the actual cost", async () => {
      const store = await (await backend.target()).open();
      const ledger = createSqlLedger(store, { finishBatch: 2 });
      const ids = [start(), start(), start()];
      for (const s of ids) assert.ok((await ledger.admit(s, [charge(0.3, 1)])).admitted);
      ledger.complete(ids[0]!.id, done, [charge(0.3, 1)], 0.1);
      ledger.complete(ids[1]!.id, { ...done, outcome: "client_aborted", usage: null }, [charge(0.3, 1)], 0.3);
      ledger.complete(ids[1]!.id, done, [charge(0.3, 1)], 0.25); // a duplicate never settles twice
      await ledger.flush();
      const [row] = await store.budgetUsage();
      assert.ok(Math.abs(row!.spent - 0.4) < close && Math.abs(row!.reserved - 0.3) < close, JSON.stringify(row));
      await ledger.close();
    });

    it("flushes batched completions on close, after admissions in flight", async () => {
      const target = await backend.target();
      const ledger = createSqlLedger(await target.open(), { finishDelayMs: 60_000 });
      const s = start();
      assert.ok((await ledger.admit(s, [charge(0.4)])).admitted);
      ledger.complete(s.id, done, [charge(0.4)], 0.1);
      const inFlight = ledger.admit(start(), []);
      await ledger.close();
      assert.ok((await inFlight).admitted, "an admission in flight at close still commits");
      await assert.rejects(ledger.admit(start(), []), StoreUnavailableError);
      const store = await target.open();
      assert.deepEqual((await store.listJournal({ limit: 2 })).entries.map((e) => e.outcome).sort(), ["ok", "started"]);
      assert.deepEqual((await store.budgetUsage()).map((u) => [u.spent, u.reserved]), [[0.1, 0]]);
      await store.close();
    });

    it("recovers entries a dead process left unfinished, keeping their reservations", async () => {
      const target = await backend.target();
      const crashed = await target.open();
      const ledger = createSqlLedger(crashed);
      await Promise.all([ledger.admit(start(), [charge(0.2, 1)]), ledger.admit(start(), [charge(0.3, 1)]), ledger.admit(start(), [])]);
      await crashed.close(); // abandoned: never completed, never flushed
      const store = await target.open();
      const recovered = createSqlLedger(store);
      assert.equal(await recovered.recover(1_800_000_000_000), 3);
      const entries = (await store.listJournal({ limit: 10 })).entries;
      assert.ok(entries.every((e) => e.outcome === "interrupted" && e.finishedAt === 1_800_000_000_000));
      assert.deepEqual(entries.map((e) => String(e.reconcile)).sort(), ["null", "pending", "pending"]);
      assert.equal((await store.budgetUsage())[0]?.reserved, 0.5, "interrupted reservations stay charged");
      assert.equal(await recovered.recover(1_800_000_000_001), 0);
      assert.deepEqual(await store.reconcile("reserved", Date.now()), { entries: 2, charged: 0.5, released: 0 });
      const [row] = await store.budgetUsage();
      assert.deepEqual([row?.spent, row?.reserved], [0.5, 0]);
      assert.deepEqual((await store.reconcile("reserved", Date.now())).entries, 0);
      await recovered.close();
    });

    it("recovery never touches its own entries, nor a live sibling's on PostgreSQL", async () => {
      const target = await backend.target();
      const sibling = await target.open("fsync", "instance-a");
      const siblingLedger = createSqlLedger(sibling);
      await siblingLedger.admit(start(), [charge(0.2, 1)]);
      const self = await target.open("fsync", "instance-b");
      const selfLedger = createSqlLedger(self);
      const own = start();
      await selfLedger.admit(own, []);
      // PostgreSQL knows the sibling is alive (it holds its liveness lock); SQLite has one relay per file.
      const live = sibling.backend === "postgres";
      assert.equal(await self.recover(1_800_000_000_000), live ? 0 : 1);
      await siblingLedger.close(); // the sibling stops without completing its call
      assert.equal(await self.recover(1_800_000_000_001), live ? 1 : 0);
      const entries = (await self.listJournal({ limit: 10 })).entries;
      assert.equal(entries.find((e) => e.id === own.id)?.outcome, "started", "this instance's own call is left alone");
      assert.deepEqual(entries.filter((e) => e.id !== own.id).map((e) => [e.outcome, e.reconcile]), [["interrupted", "pending"]]);
      await selfLedger.close();
    });

    it("refuses a schema from a newer Renio", async () => {
      const target = await backend.target();
      await (await target.open()).close();
      await target.exec(`update renio_meta set value = '${latestSchemaVersion + 1}' where key = 'schema_version'`);
      await assert.rejects(target.open(), (error: unknown) => {
        assert.ok(error instanceof SchemaTooNewError && error instanceof StoreOpenError);
        assert.match(error.message, /newer than this Renio supports/);
        return true;
      });
    });

    it("lists with filters and cursor pagination, newest first", async () => {
      const store = await (await backend.target()).open();
      const ledger = createSqlLedger(store);
      const t0 = 1_750_000_000_000;
      const starts = Array.from({ length: 25 }, (_, i) =>
        start({ receivedAt: t0 + Math.floor(i / 2), keyId: i % 3 === 0 ? "kA" : "kB", requestId: i % 4 === 0 ? `caller-${i % 8}` : null }),
      );
      await Promise.all(starts.map((s) => ledger.admit(s, [])));
      starts.filter((_, i) => i % 5 === 0).forEach((s) => ledger.complete(s.id, done, [], 0));
      ledger.refuse({ start: start({ receivedAt: t0 - 1, keyId: null, requestId: "caller-refused" }), status: 401, errorCode: "invalid_api_key" });
      await ledger.flush();
      const seen: string[] = [];
      let cursor: string | undefined;
      do {
        const page = await store.listJournal({ limit: 10, cursor });
        seen.push(...page.entries.map((e) => `${e.receivedAt}/${e.id}`));
        cursor = page.nextCursor ?? undefined;
      } while (cursor);
      assert.equal(seen.length, 26);
      assert.deepEqual(seen, [...seen].sort().reverse());
      assert.equal((await store.listJournal({ limit: 100, keyId: "kA" })).entries.length, 9);
      assert.equal((await store.listJournal({ limit: 100, outcome: "ok" })).entries.length, 5);
      assert.equal((await store.listJournal({ limit: 100, outcome: "refused" })).entries[0]?.errorCode, "invalid_api_key");
      assert.equal((await store.listJournal({ limit: 100, since: t0 + 10, until: t0 + 12 })).entries.length, 4);
      const byRequestId = (await store.listJournal({ limit: 100, requestId: "caller-4" })).entries;
      assert.deepEqual(byRequestId.map((e) => [e.id, e.requestId]), [starts[20]!, starts[12]!, starts[4]!].map((s) => [s.id, "caller-4"]));
      assert.deepEqual((await store.listJournal({ limit: 100, requestId: "caller-refused" })).entries.map((e) => [e.requestId, e.outcome]), [["caller-refused", "refused"]]);
      assert.equal((await store.listJournal({ limit: 100, requestId: "caller-" })).entries.length, 0);
      assert.equal((await store.listJournal({ limit: 100 })).entries.filter((e) => e.requestId === null).length, 18);
      for (const bad of ["garbage", "", ".x", "12.", "-1.x", "1e3.x", "99999999999999999.x"]) {
        await assert.rejects(store.listJournal({ limit: 10, cursor: bad }), (error: unknown) => {
          assert.ok(error instanceof RelayError, `cursor ${JSON.stringify(bad)}`);
          assert.deepEqual([error.status, error.code], [400, "invalid_request"]);
          assert.match(error.message, /cursor/);
          return true;
        });
      }
      await ledger.close();
    });

    it("prunes old finished entries in small batches, keeping open and pending ones", async () => {
      const store = await (await backend.target()).open();
      const ledger = createSqlLedger(store);
      const old = Array.from({ length: 23 }, () => start({ receivedAt: 1_000 }));
      await Promise.all(old.map((s) => ledger.admit(s, [])));
      old.slice(0, 20).forEach((s) => ledger.complete(s.id, done, [], 0));
      await ledger.admit(start({ receivedAt: 5_000 }), []);
      await ledger.flush();
      assert.equal(await store.pruneJournal(new Date(2_000), 7), 7);
      assert.equal(await pruneOlderThan(store, new Date(2_000), 7), 13);
      assert.equal((await store.listJournal({ limit: 100 })).entries.length, 4);
      await ledger.close();
    });

    it("applies admission-log lines: one row per call, reservations only for new entries, idempotent", async () => {
      const store = await (await backend.target()).open();
      const [a, b, c] = [start(), start(), start()];
      const charges = [charge(0.4, 1)];
      const admit = (s: JournalStart, admitted = true): LogRecord => ({ admit: { start: s, charges, admitted, decidedAt: s.receivedAt, instanceId: "relay-a" } });
      const complete = (s: JournalStart, actualCost: number): LogRecord => ({ finish: { kind: "complete", id: s.id, completion: { ...done, cost: actualCost }, charges, actualCost, finishedAt: s.receivedAt + 9 } });
      const lines = (...records: LogRecord[]) => records.map((r) => JSON.stringify(r)).join("\n");
      // a: admitted and completed in one batch; b: admitted, still open; c: refused for budget.
      const first = lines(admit(a), admit(b), admit(c, false), complete(a, 0.1));
      const rows = await store.applyLog(first);
      assert.deepEqual(rows.map((r) => [r.budgetId, r.spent, r.reserved]), [["b1", 0.1, 0.4]]);
      const byId = new Map((await store.listJournal({ limit: 10 })).entries.map((e) => [e.id, e]));
      assert.equal(byId.get(a.id)?.outcome, "ok");
      assert.equal(byId.get(a.id)?.cost, 0.1);
      assert.equal(byId.get(a.id)?.reservedCost, 0.4);
      assert.equal(byId.get(b.id)?.outcome, "started");
      assert.equal(byId.get(c.id)?.outcome, "refused");
      assert.equal(byId.get(c.id)?.errorCode, "budget_exceeded");
      // Replaying (a crash after the commit, before the log was released) changes nothing.
      assert.deepEqual((await store.applyLog(first)).map((r) => [r.spent, r.reserved]), [[0.1, 0.4]]);
      // b completes in a later batch: its reservation is released once, even if replayed.
      const second = lines(complete(b, 0.3));
      assert.deepEqual((await store.applyLog(second)).map((r) => [r.spent, r.reserved]), [[0.4, 0]]);
      assert.deepEqual((await store.applyLog(first + "\n" + second)).map((r) => [r.spent, r.reserved]), [[0.4, 0]]);
      assert.equal((await store.listJournal({ limit: 10 })).entries.length, 3);
      await store.close();
    });
  });
}

/** Admission type guard used by the overshoot test. */
export function remainingOf(admission: Admission): number | undefined {
  return admission.admitted ? admission.remaining?.amount : admission.remaining;
}
