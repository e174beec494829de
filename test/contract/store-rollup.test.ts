import { dropSchema11 } from "../support/schema-rollback.ts";
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import type { BudgetCharge } from "../../src/budgets/budget-charge.ts";
import { pruneOlderThan } from "../../src/journal/journal-retention.ts";
import { createSqlLedger } from "../../src/journal/sql-ledger.ts";
import type { JournalEntry } from "../../src/shared/journal-records.ts";
import type { Store } from "../../src/storage/store.ts";
import { LATENCY_BINS, quantile } from "../../src/storage/queries/store-usage.ts";
import { budgetCharge, journalStart, okCompletion } from "../support/journal-fixtures.ts";
import { ledgerKinds, openTestLedger } from "../support/ledgers.ts";
import { allEntries } from "../support/relay-calls.ts";
import { backends, tempDir } from "../support/store-targets.ts";
import type { UsageGroupBy, UsageRange } from "../../src/journal/journal-store.ts";

/**
 * The hourly rollup behind the dashboard's aggregates (store-rollup.ts) against the journal
 * itself: on a real SQLite file (admission-log applier) and a real PostgreSQL (SQL ledger),
 * entries across hours (completions, errors, refusals, calls in flight, entries recovered
 * after a crash, a late completion, reconciliation, retention), and after each step every
 * aggregate over ranges with whole and partial hours equals what the entries read back add up to.
 */

const HOUR = 3_600_000;
const now = Date.now();
/** Four whole hours back, so the entries span five hours up to the current one. */
const H0 = Math.floor(now / HOUR) * HOUR - 4 * HOUR;

const RANGES: readonly UsageRange[] = [
  { since: H0, until: H0 + 3 * HOUR }, // whole hours only
  { since: H0 + 17 * 60_000 + 123, until: now + 1 }, // a partial first hour, whole hours, the current hour
  { since: H0 + HOUR + 1_000, until: H0 + HOUR + 1_800_000 }, // inside one hour
  { since: H0 - 2 * HOUR, until: H0 + 2 * HOUR + 59 * 60_000 }, // a partial last hour
  { since: H0 + 1_800_000, until: H0 + 2 * HOUR + 1_800_000 }, // partial at both ends, one whole hour
];
const BUCKETS = [HOUR, 2 * HOUR, 86_400_000, 1_800_000] as const;
const GROUPINGS: ReadonlyArray<UsageGroupBy | undefined> = [undefined, "key", "project", "model", "provider", "route"];

const binOf = (ms: number): number => {
  const i = LATENCY_BINS.findIndex((bound) => ms <= bound);
  return i === -1 ? LATENCY_BINS.length : i;
};

/** The figures of `entries`, added up here from the entries read back (the oracle). */
function expected(entries: readonly JournalEntry[]) {
  const total = new Array<number>(LATENCY_BINS.length + 1).fill(0);
  const overhead = new Array<number>(LATENCY_BINS.length + 1).fill(0);
  let cost = 0;
  const counts = { calls: 0, ok: 0, refused: 0, errors: 0, inFlight: 0, inputTokens: 0, cachedInputTokens: 0, outputTokens: 0, lastAt: null as number | null };
  for (const e of entries) {
    counts.calls++;
    if (e.outcome === "ok") counts.ok++;
    else if (e.outcome === "refused") counts.refused++;
    else if (e.outcome === "started") counts.inFlight++;
    else counts.errors++;
    counts.inputTokens += e.inputTokens ?? 0;
    counts.cachedInputTokens += e.cachedInputTokens ?? 0;
    counts.outputTokens += e.outputTokens ?? 0;
    cost += e.cost ?? 0;
    counts.lastAt = Math.max(counts.lastAt ?? 0, e.receivedAt);
    if (e.totalMs !== null) {
      total[binOf(e.totalMs)]!++;
      if (e.upstreamMs !== null) overhead[binOf(e.totalMs - e.upstreamMs)]!++;
    }
  }
  const percentiles = {
    totalMsP50: quantile(total, 0.5),
    totalMsP95: quantile(total, 0.95),
    overheadMsP50: quantile(overhead, 0.5),
    overheadMsP95: quantile(overhead, 0.95),
  };
  return { counts, cost, percentiles };
}

const groupOf: Record<UsageGroupBy, (e: JournalEntry) => string | null> = {
  key: (e) => e.keyId,
  project: (e) => e.project,
  model: (e) => e.model,
  provider: (e) => e.provider,
  route: (e) => e.route,
};

function byValue<T>(entries: readonly JournalEntry[], valueOf: (e: JournalEntry) => T): Map<T, JournalEntry[]> {
  const groups = new Map<T, JournalEntry[]>();
  for (const e of entries) groups.set(valueOf(e), [...(groups.get(valueOf(e)) ?? []), e]);
  return groups;
}

/** Every aggregate the dashboard reads, over every range, equals the entries' own sums. */
async function assertAggregatesMatchJournal(store: Store, step: string): Promise<void> {
  const journal = await allEntries(store);
  for (const range of RANGES) {
    const inRange = journal.filter((e) => e.receivedAt >= range.since && e.receivedAt < range.until);
    const where = `${step}, [H0${range.since - H0 >= 0 ? "+" : ""}${range.since - H0}, H0+${range.until - H0})`;
    for (const by of GROUPINGS) {
      const groups = by === undefined ? new Map([[null, inRange]]) : byValue(inRange, groupOf[by]);
      const got = await store.usageByGroup(range, by);
      assert.deepEqual(new Set(got.map((g) => g.group)), new Set([...groups.keys()].filter((k) => (groups.get(k)?.length ?? 0) > 0)), `${where} by ${by}: groups`);
      for (const g of got) {
        const want = expected(groups.get(g.group)!);
        const { group: _group, cost, totalMsP50, totalMsP95, overheadMsP50, overheadMsP95, ...counts } = g;
        assert.deepEqual(counts, want.counts, `${where} by ${by}, group ${g.group}`);
        assert.deepEqual({ totalMsP50, totalMsP95, overheadMsP50, overheadMsP95 }, want.percentiles, `${where} by ${by}, group ${g.group}: percentiles`);
        assert.ok(Math.abs(cost - want.cost) < 1e-9, `${where} by ${by}, group ${g.group}: cost ${cost}, journal ${want.cost}`);
      }
    }
    for (const bucketMs of BUCKETS) {
      const buckets = byValue(inRange, (e) => Math.floor(e.receivedAt / bucketMs) * bucketMs);
      const got = await store.usageSeries({ ...range, bucketMs });
      assert.deepEqual(got.map((b) => b.at), [...buckets.keys()].sort((a, b) => a - b), `${where} by ${bucketMs} ms: buckets`);
      for (const b of got) {
        const want = expected(buckets.get(b.at)!);
        assert.deepEqual(
          { calls: b.calls, errors: b.errors, refused: b.refused, overheadMsP50: b.overheadMsP50, overheadMsP95: b.overheadMsP95 },
          { calls: want.counts.calls, errors: want.counts.errors, refused: want.counts.refused, overheadMsP50: want.percentiles.overheadMsP50, overheadMsP95: want.percentiles.overheadMsP95 },
          `${where} by ${bucketMs} ms, bucket ${b.at}`,
        );
        assert.ok(Math.abs(b.cost - want.cost) < 1e-9, `${where} by ${bucketMs} ms, bucket ${b.at}: cost`);
      }
    }
  }
}

/** When the i-th call of the traffic is received: spread over the five hours, some in the current one. */
const receivedAt = (i: number): number => Math.min(H0 + i * 271_113, now - 1);

/** A call's part of the traffic: who sends it and how it ends. */
function callOf(i: number) {
  const start = journalStart({
    receivedAt: receivedAt(i),
    keyId: i % 11 === 0 ? null : `k${i % 3}`,
    project: i % 11 === 0 ? null : `p${i % 2}`,
    model: `m${i % 4}`,
    provider: `provider-${i % 2}`,
    route: i % 5 === 0 ? "/v1/messages" : "/v1/chat/completions",
  });
  const charges: BudgetCharge[] = i % 7 === 3 ? [budgetCharge(5, { budgetId: "tight", limit: 1 })] : [budgetCharge(0.01, { budgetId: "roomy", limit: 1_000_000, mode: "observe" })];
  const totalMs = 3 + ((i * 37) % 900);
  const completion =
    i % 6 === 1
      ? okCompletion({ outcome: "upstream_error", status: 502, totalMs, upstreamMs: null, usage: null, cost: 0, errorCode: "upstream_status" })
      : okCompletion({ totalMs, upstreamMs: totalMs - 0.05 * (i % 9), usage: { inputTokens: 10 + i, cachedInputTokens: i % 4, outputTokens: 2 * i }, cost: 0.001 * (i % 13), ...(i % 8 === 5 ? { provider: "provider-fallback" } : {}) });
  return { start, charges, completion };
}

for (const { kind, name, skip } of ledgerKinds.filter((k) => k.kind === "log-process" || k.kind === "postgres-process")) {
  describe(`hourly rollup = journal: ${name}`, { skip }, () => {
    it("every aggregate over whole and partial hours equals the entries', through completions, refusals, a crash, a late completion, reconciliation and retention", async () => {
      let relay = await openTestLedger(kind, tempDir());
      const open: string[] = [];
      const completeLater: Array<ReturnType<typeof callOf>> = [];
      for (let i = 0; i < 70; i++) {
        const call = callOf(i);
        if (i % 10 === 9) {
          relay.ledger.refuse({ start: call.start, status: 401, errorCode: "invalid_api_key" });
          continue;
        }
        const admission = await relay.ledger.admit(call.start, call.charges);
        if (!admission.admitted) continue; // refused for budget at admission
        if (i % 13 === 4) open.push(call.start.id); // still in flight at the crash
        else if (i % 4 === 2) completeLater.push(call); // finished in a later batch than its admission
        else relay.ledger.complete(call.start.id, call.completion, call.charges, call.completion.cost ?? 0);
      }
      await relay.ledger.flush();
      for (const call of completeLater) relay.ledger.complete(call.start.id, call.completion, call.charges, call.completion.cost ?? 0);
      await relay.ledger.flush();
      await assertAggregatesMatchJournal(relay.store, "completions, errors and refusals, calls in flight");

      relay = await relay.crashAndRestart();
      assert.ok(relay.recovered >= 2, `recovery marked the calls in flight interrupted (${relay.recovered})`);
      await assertAggregatesMatchJournal(relay.store, "after the crash and recovery");

      // A completion reaching an entry the crash left pending (a relay thought gone finishing its call).
      const late = callOf(4);
      const [pending] = (await relay.store.listJournal({ id: open[0]!, limit: 1 })).entries;
      assert.equal(pending?.reconcile, "pending");
      relay.ledger.complete(open[0]!, { ...late.completion, provider: "provider-late" }, late.charges, 0.001);
      await relay.ledger.flush();
      assert.equal((await relay.store.listJournal({ id: open[0]!, limit: 1 })).entries[0]?.provider, "provider-late");
      await assertAggregatesMatchJournal(relay.store, "after a late completion");

      const reconciled = await relay.store.reconcile("reserved", Date.now());
      assert.ok(reconciled.entries >= 1 && reconciled.charged > 0, "reconciliation charged the pending reservations");
      await assertAggregatesMatchJournal(relay.store, "after reconciliation");

      const deleted = await pruneOlderThan(relay.store, new Date(H0 + HOUR + 1_234_567), 7);
      assert.ok(deleted > 5, `retention deleted the oldest entries (${deleted})`);
      await assertAggregatesMatchJournal(relay.store, "after retention");
      await relay.close();
    });
  });
}

for (const backend of backends) {
  describe(`hourly rollup of an upgraded store: ${backend.name}`, () => {
    it("a store opened on a schema 6 journal fills the rollup from its entries (migration 7)", async () => {
      const target = await backend.target();
      let store = await target.open();
      const ledger = createSqlLedger(store);
      for (let i = 0; i < 40; i++) {
        const call = callOf(i);
        const admission = await ledger.admit(call.start, []);
        if (admission.admitted && i % 9 !== 4) ledger.complete(call.start.id, call.completion, [], call.completion.cost ?? 0);
      }
      await ledger.close();
      // As a store of the previous version left it: no rollup (nor what later schemas added), schema 6.
      await target.exec("drop table usage_hour");
      // And without what later migrations add (8: quarantine, pruned spend; 9: the guardrails column and its index; 10: saved_cost; 11: who a call is for).
      await target.exec("drop table journal_quarantine");
      await target.exec("alter table budget_usage drop column pruned_nanos");
      await target.exec("drop index journal_entry_guardrails_time");
      await target.exec("alter table journal_entry drop column guardrails");
      await target.exec("alter table journal_entry drop column saved_cost");
      await dropSchema11((sql) => target.exec(sql));
      await target.exec("update renio_meta set value = '6' where key = 'schema_version'");
      store = await target.open();
      await assertAggregatesMatchJournal(store, "after the upgrade");
      const [all] = await store.usageByGroup({ since: H0, until: now + 1 });
      assert.ok(all !== undefined && all.calls === 40 && all.inFlight > 0, "the upgraded store counts every entry, the open ones in flight");
      await store.close();
    });
  });
}
