import type { Insertable, Kysely } from "kysely";
import { fromNanos, toNanos } from "../../budgets/budget-amounts.ts";
import type { Admission, BudgetCharge } from "../../budgets/budget-charge.ts";
import type { BudgetTotals } from "../../budgets/budget-decision.ts";
import type { BudgetTerms } from "../../budgets/budget-definition.ts";
import { decideUnderTerms } from "../../budgets/budget-terms.ts";
import { downgradeApplies } from "../../budgets/budget-downgrade.ts";
import { termsBudgetId } from "../../budgets/budget-scope.ts";
import { addDelta, reservationDeltas, type BudgetDeltas } from "../../budgets/budget-deltas.ts";
import { budgetKey } from "../../budgets/budget-key.ts";
import type { BudgetUsage } from "../../budgets/budget-usage.ts";
import type { JournalStart } from "../../shared/journal-records.ts";
import type { HotStatements } from "./hot-statements.ts";
import type { AdmitItem, FinishItem } from "../../journal/journal-store.ts";
import { applyDeltas } from "./store-budget-rows.ts";
import { termsOfRow, type BudgetTermsRow } from "../queries/store-budget-definitions.ts";
import type { Database, JournalEntryTable } from "../store-schema.ts";
import type { RunQuery } from "./store-transaction.ts";
import { addToRollup, applyRollup, newRollupDeltas } from "../queries/store-rollup.ts";

/** A budget row as read at the start of an admission transaction, in billionths. */
export interface StoredRow extends BudgetTotals {
  limit: number;
}

/**
 * The body of one admission transaction: reads the terms in force of the stored budgets the
 * batch charges (PostgreSQL: FOR SHARE, so a relay that has not yet seen a limit lowered,
 * a pause or a deletion decides by the store, not by its stale charges), creates missing
 * budget rows, reads (and on PostgreSQL locks, in key order) every row the batch touches,
 * decides each item in order (reserving by the same delta rule as the admission log), writes
 * each touched row once and inserts every entry in one multi-row insert.
 */
export async function admitInTransaction(
  trx: Kysely<Database>,
  run: RunQuery,
  items: readonly AdmitItem[],
  hot: HotStatements,
  knownRows: ReadonlySet<string>,
  now: number,
  instanceId: string | null,
): Promise<Admission[]> {
  const termsOf = await loadTerms(run, items, hot);
  const rows = await loadRows(trx, run, items, hot, knownRows, now);
  const deltas: BudgetDeltas = new Map();
  const decided = items.map((item) => decideItem(item, termsOf, rows, deltas));
  const admissions = decided.map((one) => one.admission);
  await applyDeltas(run, deltas, now, hot);
  const values = decided.map((one) => ({ ...entryValues(one.entry, one.admission, now), instance_id: instanceId }));
  await run(hot.insertEntries(values, false));
  // Refused entries are finished already: they go to the hourly rollup now.
  const rollup = newRollupDeltas();
  for (const row of values) addToRollup(rollup, row);
  await applyRollup(run, hot.rollup, rollup);
  return admissions;
}

/** The budget rows a batch touches (`budgetKey`s), for the caller to remember once committed. */
export function touchedRows(items: readonly AdmitItem[]): string[] {
  return items.flatMap((item) => chargesOf(item).map((charge) => budgetKey(charge.budgetId, charge.period)));
}

/** Every charge an item may reserve: its own, then its cheaper alternative's. */
function chargesOf(item: AdmitItem): readonly BudgetCharge[] {
  return item.cheaper === undefined ? item.charges : [...item.charges, ...item.cheaper.charges];
}

/** Decides one item; a refusal by a budget naming a cheaper model gives way to the item's alternative when that one fits. */
function decideItem(
  item: AdmitItem,
  termsOf: (budgetId: string) => BudgetTerms | undefined,
  rows: ReadonlyMap<string, StoredRow>,
  deltas: BudgetDeltas,
): { admission: Admission; entry: Pick<AdmitItem, "start" | "charges"> } {
  const admission = decide(item.charges, termsOf, rows, deltas);
  if (item.cheaper === undefined || !downgradeApplies(admission, item.charges)) return { admission, entry: item };
  const second = decide(item.cheaper.charges, termsOf, rows, deltas);
  return second.admitted ? { admission: { ...second, downgraded: true }, entry: item.cheaper } : { admission, entry: item };
}

/** The terms in force of the stored budgets the batch charges (none: no statement; config budgets' charges carry their terms). */
async function loadTerms(run: RunQuery, items: readonly AdmitItem[], hot: HotStatements): Promise<(budgetId: string) => BudgetTerms | undefined> {
  const charged = new Map<string, BudgetCharge>();
  // An end user's row follows its template's definition.
  for (const item of items) for (const charge of chargesOf(item)) if (charge.stored) charged.set(termsBudgetId(charge.budgetId), charge);
  if (charged.size === 0) return () => undefined;
  const ids = [...charged.keys()].sort();
  const terms = new Map<string, BudgetTerms>();
  for (const row of (await run<BudgetTermsRow>(hot.selectBudgetTerms(ids))).rows) terms.set(row.id, termsOfRow(row, charged.get(row.id) as BudgetCharge));
  return (budgetId) => terms.get(termsBudgetId(budgetId));
}

async function loadRows(
  trx: Kysely<Database>,
  run: RunQuery,
  items: readonly AdmitItem[],
  hot: HotStatements,
  knownRows: ReadonlySet<string>,
  now: number,
): Promise<Map<string, StoredRow>> {
  const wanted = new Map<string, BudgetCharge>();
  for (const item of items) for (const charge of chargesOf(item)) wanted.set(budgetKey(charge.budgetId, charge.period), charge);
  const rows = new Map<string, StoredRow>();
  if (wanted.size === 0) return rows;
  // Lock in byte order, the order every other writer touches these rows in (no deadlocks).
  const keys = [...wanted.values()].sort((a, b) => compareRows(a, b));
  await createMissingRows(trx, keys, knownRows, now);
  const result = await run<BudgetRow>(hot.selectBudgetRows(keys));
  for (const row of result.rows) {
    rows.set(budgetKey(row.budget_id, row.period), { limit: Number(row.limit_nanos), spent: Number(row.spent_nanos), reserved: Number(row.reserved_nanos) });
  }
  return rows;
}

/** Creates the budget rows of `charges` not known to exist yet (at zero usage). */
export async function createMissingRows(trx: Kysely<Database>, charges: readonly BudgetCharge[], knownRows: ReadonlySet<string>, now: number): Promise<void> {
  const missing = new Map<string, BudgetCharge>();
  for (const c of charges) {
    const key = budgetKey(c.budgetId, c.period);
    if (!knownRows.has(key)) missing.set(key, c);
  }
  if (missing.size === 0) return;
  await trx
    .insertInto("budget_usage")
    .values([...missing.values()].map((c) => ({ budget_id: c.budgetId, period: c.period, limit_nanos: toNanos(c.limit), spent_nanos: 0, reserved_nanos: 0, updated_at: now })))
    .onConflict((oc) => oc.columns(["budget_id", "period"]).doNothing())
    .execute();
}

/** A budget row as the hot statements read it (PostgreSQL returns bigints as strings). */
export interface BudgetRow {
  budget_id: string;
  period: string;
  limit_nanos: number | string;
  spent_nanos: number | string;
  reserved_nanos: number | string;
}

/** A read budget row in currency amounts. */
export function budgetUsageOf(row: BudgetRow): BudgetUsage {
  const [limit, spent, reserved] = [Number(row.limit_nanos), Number(row.spent_nanos), Number(row.reserved_nanos)];
  return { budgetId: row.budget_id, period: row.period, limit: fromNanos(limit), spent: fromNanos(spent), reserved: fromNanos(reserved), remaining: fromNanos(limit - spent - reserved) };
}

/**
 * Decides one call against the batch's rows as stored plus the batch's changes so far, under
 * the terms in force (see decideUnderTerms); an admitted call adds its reservation
 * (reservationDeltas). A refused call reserves nothing but still moves a row to the limit in
 * force when config or the store changed it.
 */
export function decide(
  quoted: readonly BudgetCharge[],
  termsOf: (budgetId: string) => BudgetTerms | undefined,
  rows: ReadonlyMap<string, StoredRow>,
  deltas: BudgetDeltas,
): Admission {
  const rowOf = (charge: BudgetCharge): StoredRow => {
    const row = rows.get(budgetKey(charge.budgetId, charge.period));
    if (!row) throw new Error(`budget row ${charge.budgetId}/${charge.period} missing after insert`);
    return row;
  };
  const totalsOf = (charge: BudgetCharge): BudgetTotals => {
    const row = rowOf(charge);
    const delta = deltas.get(budgetKey(charge.budgetId, charge.period));
    return { spent: row.spent + (delta?.spent ?? 0), reserved: row.reserved + (delta?.reserved ?? 0) };
  };
  const { admission, charges } = decideUnderTerms(quoted, termsOf, totalsOf);
  if (admission.admitted) {
    reservationDeltas(deltas, charges);
    return admission;
  }
  for (const charge of charges) {
    const limit = toNanos(charge.limit);
    if ((deltas.get(budgetKey(charge.budgetId, charge.period))?.limit ?? rowOf(charge).limit) !== limit) addDelta(deltas, charge, 0, 0).limit = limit;
  }
  return admission;
}

/** Row values of a journal entry at admission (started, or refused for budget: over its limit, or paused). */
export function entryValues(item: Pick<AdmitItem, "start" | "charges">, decided: { admitted: boolean; paused?: true }, now: number): Insertable<JournalEntryTable> {
  const base = startValues(item.start);
  if (!decided.admitted) return { ...base, outcome: "refused", status: 429, error_code: decided.paused ? "budget_paused" : "budget_exceeded", finished_at: now };
  if (item.charges.length === 0) return base;
  return {
    ...base,
    reserved_cost: Math.max(...item.charges.map((c) => c.amount)),
    reserved_charges: JSON.stringify(item.charges.map((c) => [c.budgetId, c.period, toNanos(c.amount)])),
  };
}

/** Row values for the start of an entry. */
export function startValues(start: JournalStart): Insertable<JournalEntryTable> {
  return {
    id: start.id,
    received_at: start.receivedAt,
    request_id: start.requestId ?? null,
    key_id: start.keyId,
    project: start.project,
    route: start.route,
    model: start.model,
    provider: start.provider,
    upstream_model: start.upstreamModel,
    // Absent in admission-log records written before schema 2.
    region: start.region ?? null,
    stream: start.stream ? 1 : 0,
    request_bytes: start.requestBytes,
    client_address: start.clientAddress,
    request_body: start.requestBody,
    guardrails: start.guardrails ? JSON.stringify(start.guardrails) : null,
    // Absent in admission-log records written before schema 11.
    end_user: start.endUser ?? null,
    team: start.team ?? null,
    tags: start.tags && start.tags.length > 0 ? JSON.stringify(start.tags) : null,
    downgraded_from: start.downgradedFrom ?? null,
    outcome: "started",
  };
}

function compareRows(a: { budgetId: string; period: string }, b: { budgetId: string; period: string }): number {
  return a.budgetId < b.budgetId ? -1 : a.budgetId > b.budgetId ? 1 : a.period < b.period ? -1 : a.period > b.period ? 1 : 0;
}

/** Row values a completion sets (on an open entry, or on one inserted already finished). */
export function finishedValues(item: Extract<FinishItem, { kind: "complete" }>) {
  const c = item.completion;
  return {
    finished_at: item.finishedAt,
    outcome: c.outcome,
    status: c.status,
    ttfb_ms: c.ttfbMs,
    total_ms: c.totalMs,
    upstream_ms: c.upstreamMs,
    input_tokens: c.usage?.inputTokens ?? null,
    cached_input_tokens: c.usage?.cachedInputTokens ?? null,
    output_tokens: c.usage?.outputTokens ?? null,
    cost: c.cost,
    cost_estimated: c.costEstimated === undefined ? null : c.costEstimated ? 1 : 0,
    saved_cost: c.savedCost ?? null,
    error_code: c.errorCode,
    response_body: c.responseBody,
    attempts: c.attempts === undefined ? null : JSON.stringify(c.attempts),
    guardrails: c.guardrails ? JSON.stringify(c.guardrails) : null,
  };
}

/** Where a completion says the call was served, when a retry or fallback moved it (else nulls: the start's stay). */
export function servedValues(item: Extract<FinishItem, { kind: "complete" }>) {
  const c = item.completion;
  return { provider: c.provider ?? null, upstream_model: c.upstreamModel ?? null, region: c.region ?? null };
}
