import { sql, type Kysely } from "kysely";
import type { FinishItem, ReconcileResult } from "../../journal/journal-store.ts";
import { addDelta, settlementDeltas, type BudgetDeltas } from "../../budgets/budget-deltas.ts";
import { applyDeltas } from "./store-budget-rows.ts";
import { fromNanos } from "../../budgets/budget-amounts.ts";
import { parseReservedCharges } from "../../budgets/books-check.ts";
import type { Database } from "../store-schema.ts";
import { finishedValues, servedValues, startValues } from "./store-admit.ts";
import type { HotStatements } from "./hot-statements.ts";
import type { StoreDialect } from "../dialects/store-dialect.ts";
import type { RunQuery } from "./store-transaction.ts";
import type { AlertRules } from "../../alerts/alert-rules.ts";
import { recordInterrupted, recordThresholds } from "../queries/store-alert-outbox.ts";
import { addCostToRollup, addToRollup, applyRollup, newRollupDeltas, ROLLUP_ENTRY_COLUMNS, type RollupDeltas, type RollupEntry } from "../queries/store-rollup.ts";
import { sumAmounts } from "../../shared/money.ts";

/**
 * The body of one finish transaction: completes entries (only those still open or pending
 * reconciliation, so nothing is settled twice), settles their charges and records refusals,
 * and adds what it finished to the hourly rollup (with what the caller collected in `rollup`).
 */
export async function finishInTransaction(
  trx: Kysely<Database>,
  run: RunQuery,
  items: readonly FinishItem[],
  hot: HotStatements,
  instanceId: string | null,
  rules: AlertRules,
  rollup: RollupDeltas = newRollupDeltas(),
): Promise<void> {
  const deltas: BudgetDeltas = new Map();
  const completes = items.filter((i) => i.kind === "complete").sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
  const values = completes.map((item) => ({ id: item.id, ...finishedValues(item), ...servedValues(item) }));
  // The open entries in one statement per chunk, each id once (a repeated completion of an entry
  // finds it finished below, as one arriving in a later batch would); the others (interrupted and
  // not reconciled yet: rare) one by one.
  const first = new Map<string, number>();
  completes.forEach((item, i) => first.has(item.id) || first.set(item.id, i));
  const completed = new Set<string>();
  for (const chunk of statementSizedChunks([...first.values()].map((i) => values[i]!))) {
    for (const entry of (await run<RollupEntry & { id: string }>(hot.completeEntries(chunk))).rows) {
      completed.add(entry.id);
      addToRollup(rollup, entry);
    }
  }
  for (const [i, item] of completes.entries()) {
    if (first.get(item.id) === i && completed.has(item.id)) {
      settlementDeltas(deltas, item.charges, item.actualCost);
      continue;
    }
    // Not open: interrupted by a crash and not reconciled yet (rare), already finished, or unknown.
    const interrupted = (await run<RollupEntry>(hot.rollup.pendingEntry({ id: item.id }))).rows[0];
    if (interrupted === undefined) continue;
    addToRollup(rollup, interrupted, -1);
    const updated = (await run<RollupEntry>(hot.completePendingEntry(values[i]!))).rows[0];
    if (updated === undefined) throw new Error(`journal entry ${item.id} changed while it was completed`);
    addToRollup(rollup, updated);
    settlementDeltas(deltas, item.charges, item.actualCost);
  }
  const now = items[0]?.finishedAt ?? Date.now();
  const unsent = items.flatMap((i) => (i.kind === "unsent" ? [i] : []));
  if (unsent.length > 0) await settleUnsent(trx, run, unsent, hot, instanceId, deltas, rollup, now);
  await applyDeltas(run, deltas, now, hot);
  await recordThresholds(trx, run, hot, rules, deltas, now);
  const refusals = items.flatMap((i) => (i.kind === "refuse" ? [i] : []));
  if (refusals.length > 0) {
    const rows = refusals.map((r) => ({ ...startValues(r.refusal.start), outcome: r.refusal.outcome ?? "refused", status: r.refusal.status, error_code: r.refusal.errorCode, finished_at: r.finishedAt, instance_id: instanceId }));
    const inserted = new Set((await run<{ id: string }>(hot.insertEntries(rows, true))).rows.map((r) => r.id));
    for (const row of rows) if (inserted.has(row.id)) addToRollup(rollup, row);
  }
  await applyRollup(run, hot.rollup, rollup);
}

/** How an admission that was never sent ends (the caller got 503 `store_unavailable`). */
const UNSENT = { outcome: "refused", status: 503, error_code: "store_unavailable" } as const;

/**
 * Settles admissions that were never sent and whose write may have landed: an entry not there
 * is inserted refused when the item asks for a fence (so a commit of the admission still on its
 * way fails on its id and reserves nothing); one there and still started is finished refused
 * at cost 0, and what it reserved (its stored charges) is released into `deltas`. Anything else
 * was settled before.
 */
async function settleUnsent(
  trx: Kysely<Database>,
  run: RunQuery,
  items: ReadonlyArray<Extract<FinishItem, { kind: "unsent" }>>,
  hot: HotStatements,
  instanceId: string | null,
  deltas: BudgetDeltas,
  rollup: RollupDeltas,
  now: number,
): Promise<void> {
  const fences = items.filter((u) => u.fence).map((u) => ({ ...startValues(u.start), ...UNSENT, finished_at: u.finishedAt, instance_id: instanceId }));
  // PostgreSQL: waits for an insert of the same id still in flight on another connection, then sees it.
  const inserted = new Set(fences.length === 0 ? [] : (await run<{ id: string }>(hot.insertEntries(fences, true))).rows.map((r) => r.id));
  for (const row of fences) if (inserted.has(row.id)) addToRollup(rollup, row);
  const landed = items.map((u) => u.start.id).filter((id) => !inserted.has(id));
  if (landed.length === 0) return;
  const finished = await trx
    .updateTable("journal_entry")
    // Charged nothing: cost 0 where it reserved (null where nothing applies, as for any refusal).
    .set({ ...UNSENT, finished_at: now, cost: sql<number | null>`case when reserved_charges is null then null else 0 end`, cost_estimated: sql<number | null>`case when reserved_charges is null then null else 0 end` })
    .where("id", "in", landed)
    .where("outcome", "=", "started")
    .returning(["reserved_charges", ...ROLLUP_ENTRY_COLUMNS])
    .execute();
  for (const entry of finished) {
    addToRollup(rollup, entry);
    for (const [budgetId, period, amount] of parseReservedCharges(entry.reserved_charges)) addDelta(deltas, { budgetId, period }, -amount, 0);
  }
}

/** Row counts the batched completion is compiled for: a few statements serve every batch size. */
const CHUNK_SIZES = [64, 16, 4, 1] as const;

function statementSizedChunks<T>(rows: readonly T[]): T[][] {
  const chunks: T[][] = [];
  let at = 0;
  for (const size of CHUNK_SIZES) {
    for (; rows.length - at >= size; at += size) chunks.push(rows.slice(at, at + size));
  }
  return chunks;
}

/**
 * Marks entries left unfinished by dead relay processes interrupted at `now`; entries holding a
 * reservation become pending. Entries of this instance (`self`) are never touched, nor those of
 * other live instances where the dialect can tell (`ownerGone`, PostgreSQL); on SQLite one
 * relay owns the file, so every other instance is gone. With a webhook for it, what was found
 * is written to the alert outbox in the same transaction (`journal.interrupted`).
 */
export async function recoverInTransaction(
  trx: Kysely<Database>,
  run: RunQuery,
  hot: HotStatements,
  now: number,
  self: string | null,
  ownerGone: StoreDialect["ownerGone"],
  rules: AlertRules,
): Promise<number> {
  let query = trx
    .updateTable("journal_entry")
    .set({
      outcome: "interrupted",
      finished_at: now,
      reconcile: sql<string | null>`case when reserved_charges is null then null else 'pending' end`,
    })
    .where("outcome", "=", "started");
  if (self !== null) query = query.where((eb) => eb.or([eb("instance_id", "is", null), eb("instance_id", "!=", self)]));
  if (ownerGone) query = query.where((eb) => eb.or([eb("instance_id", "is", null), ownerGone(sql.ref("instance_id"))]));
  const marked = await query.returning(["reserved_cost", "reserved_charges", ...ROLLUP_ENTRY_COLUMNS]).execute();
  const rollup = newRollupDeltas();
  for (const entry of marked) addToRollup(rollup, entry);
  await applyRollup(run, hot.rollup, rollup);
  const holding = marked.filter((e) => e.reserved_charges !== null);
  const reserved = sumAmounts(holding.map((e) => Number(e.reserved_cost ?? 0)));
  await recordInterrupted(trx, rules, { entries: marked.length, pending: holding.length, reserved }, now);
  return marked.length;
}

/** Settles entries pending reconciliation at their reserved cost or at zero. */
export async function reconcileInTransaction(
  trx: Kysely<Database>,
  run: RunQuery,
  costAt: "reserved" | "zero",
  lockRows: boolean,
  now: number,
  hot: HotStatements,
  rules: AlertRules,
): Promise<ReconcileResult> {
  let query = trx.selectFrom("journal_entry").select(["id", "reserved_charges", ...ROLLUP_ENTRY_COLUMNS]).where("reconcile", "=", "pending").orderBy("id");
  if (lockRows) query = query.forUpdate();
  const pending = await query.execute();
  const deltas: BudgetDeltas = new Map();
  const result: ReconcileResult = { entries: 0, charged: 0, released: 0 };
  // Summed in billionths and converted once: a sum of binary fractions prints 0.0573520000000001.
  let charged = 0;
  let released = 0;
  const rollup = newRollupDeltas();
  for (const entry of pending) {
    let cost = 0;
    for (const [budgetId, period, amount] of parseReservedCharges(entry.reserved_charges)) {
      const spent = costAt === "reserved" ? amount : 0;
      addDelta(deltas, { budgetId, period }, -amount, spent);
      cost = Math.max(cost, spent);
      charged += spent;
      released += amount - spent;
    }
    await trx.updateTable("journal_entry").set({ reconcile: "settled", cost: fromNanos(cost) }).where("id", "=", entry.id).execute();
    // Pending entries have no cost yet (a completion or a reconciliation ends the pending state).
    addCostToRollup(rollup, entry, fromNanos(cost) - Number(entry.cost ?? 0));
    result.entries++;
  }
  await applyRollup(run, hot.rollup, rollup);
  await applyDeltas(run, deltas, now, hot);
  await recordThresholds(trx, run, hot, rules, deltas, now);
  return { ...result, charged: fromNanos(charged), released: fromNanos(released) };
}
