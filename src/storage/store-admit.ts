import type { Insertable, Kysely } from "kysely";
import type { HotStatements } from "./hot-statements.ts";
import type { Admission, BudgetCharge, JournalStart } from "../journal/ledger.ts";
import type { AdmitItem } from "./store.ts";
import { fromNanos, toNanos, type Database, type JournalEntryTable } from "./store-schema.ts";
import { budgetKey, type RunQuery } from "./store-transaction.ts";

interface RowState {
  budgetId: string;
  period: string;
  limit: number;
  spent: number;
  reserved: number;
  dirty: boolean;
}

/**
 * The body of one admission transaction: creates missing budget rows, reads (and on
 * PostgreSQL locks, in key order) every row the batch touches, decides each item in order,
 * writes each touched row once and inserts every entry in one multi-row insert.
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
  const rows = await loadRows(trx, run, items, hot, knownRows, now);
  const admissions = items.map((item) => decide(item.charges, rows));
  for (const row of [...rows.values()].sort(compareRows)) {
    if (!row.dirty) continue;
    await run(hot.setBudgetReserved({ budgetId: row.budgetId, period: row.period, reserved: row.reserved, limit: row.limit, now }));
  }
  const values = items.map((item, index) => ({ ...entryValues(item, admissions[index] as Admission, now), instance_id: instanceId }));
  await run(hot.insertEntries(values, false));
  return admissions;
}

/** The budget rows a batch touches (`budgetKey`s), for the caller to remember once committed. */
export function touchedRows(items: readonly AdmitItem[]): string[] {
  return items.flatMap((item) => item.charges.map((charge) => budgetKey(charge.budgetId, charge.period)));
}

async function loadRows(
  trx: Kysely<Database>,
  run: RunQuery,
  items: readonly AdmitItem[],
  hot: HotStatements,
  knownRows: ReadonlySet<string>,
  now: number,
): Promise<Map<string, RowState>> {
  const wanted = new Map<string, BudgetCharge>();
  for (const item of items) for (const charge of item.charges) wanted.set(budgetKey(charge.budgetId, charge.period), charge);
  const rows = new Map<string, RowState>();
  if (wanted.size === 0) return rows;
  // Lock in byte order, the order every other writer touches these rows in (no deadlocks).
  const keys = [...wanted.values()].sort((a, b) => compareRows(a, b));
  const missing = keys.filter((c) => !knownRows.has(budgetKey(c.budgetId, c.period)));
  if (missing.length > 0) {
    await trx
      .insertInto("budget_usage")
      .values(missing.map((c) => ({ budget_id: c.budgetId, period: c.period, limit_nanos: toNanos(c.limit), spent_nanos: 0, reserved_nanos: 0, updated_at: now })))
      .onConflict((oc) => oc.columns(["budget_id", "period"]).doNothing())
      .execute();
  }
  const result = await run<BudgetRow>(hot.selectBudgetRows(keys));
  for (const row of result.rows) {
    rows.set(budgetKey(row.budget_id, row.period), {
      budgetId: row.budget_id,
      period: row.period,
      limit: Number(row.limit_nanos),
      spent: Number(row.spent_nanos),
      reserved: Number(row.reserved_nanos),
      dirty: false,
    });
  }
  return rows;
}

interface BudgetRow {
  budget_id: string;
  period: string;
  limit_nanos: number | string;
  spent_nanos: number | string;
  reserved_nanos: number | string;
}

/** Decides one call against the in-memory rows, reserving on success. */
function decide(charges: readonly BudgetCharge[], rows: Map<string, RowState>): Admission {
  const states = charges.map((charge) => {
    const row = rows.get(budgetKey(charge.budgetId, charge.period));
    if (!row) throw new Error(`budget row ${charge.budgetId}/${charge.period} missing after insert`);
    const limit = toNanos(charge.limit);
    if (row.limit !== limit) {
      row.limit = limit;
      row.dirty = true;
    }
    return { charge, row, amount: toNanos(charge.amount) };
  });
  for (const { charge, row, amount } of states) {
    if (charge.mode === "strict" && row.spent + row.reserved + amount > row.limit) {
      return { admitted: false, budgetId: charge.budgetId, limit: charge.limit, remaining: fromNanos(Math.max(0, row.limit - row.spent - row.reserved)) };
    }
  }
  let tightest: { budgetId: string; amount: number } | undefined;
  for (const { charge, row, amount } of states) {
    row.reserved += amount;
    row.dirty = true;
    const remaining = row.limit - row.spent - row.reserved;
    if (!tightest || remaining < tightest.amount) tightest = { budgetId: charge.budgetId, amount: remaining };
  }
  return tightest ? { admitted: true, remaining: { budgetId: tightest.budgetId, amount: fromNanos(tightest.amount) } } : { admitted: true };
}

/** Row values of a journal entry at admission (started, or refused for budget). */
function entryValues(item: AdmitItem, admission: Admission, now: number): Insertable<JournalEntryTable> {
  const base = startValues(item.start);
  if (!admission.admitted) return { ...base, outcome: "refused", status: 429, error_code: "budget_exceeded", finished_at: now };
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
    stream: start.stream ? 1 : 0,
    request_bytes: start.requestBytes,
    client_address: start.clientAddress,
    request_body: start.requestBody,
    outcome: "started",
  };
}

function compareRows(a: { budgetId: string; period: string }, b: { budgetId: string; period: string }): number {
  return a.budgetId < b.budgetId ? -1 : a.budgetId > b.budgetId ? 1 : a.period < b.period ? -1 : a.period > b.period ? 1 : 0;
}
