import { sql, type CompiledQuery, type Kysely } from "kysely";
import { toNanos } from "../../budgets/budget-amounts.ts";
import type { Admission } from "../../budgets/budget-charge.ts";
import type { BudgetDeltas } from "../../budgets/budget-deltas.ts";
import { budgetKey } from "../../budgets/budget-key.ts";
import { ENTRY_COLUMNS, type EntryRow } from "./hot-statements.ts";
import type { AdmitItem } from "../../journal/journal-store.ts";
import type { Database } from "../store-schema.ts";
import { decide, entryValues, type StoredRow } from "./store-admit.ts";
import { precompile, type Precompiled } from "./precompiled-query.ts";

/**
 * A batch of admissions in one autocommit statement (PostgreSQL): one round trip, the commit
 * included, for the common batch whose every call fits. The statement locks the batch's budget
 * rows in byte order (as the admission transaction does), checks that every strict row has room
 * for the whole batch, and only then reserves the batch's amounts and inserts its entries; when
 * a row lacks room it writes nothing and the batch is decided call by call in the admission
 * transaction (store-admit.ts), which may refuse some. A batch fits as a whole exactly when each
 * call fits in order (amounts are never negative), so both paths admit the same calls.
 */

/** SQL types of the entry columns (parameters of `unnest` arrays carry none). */
const ENTRY_TYPES: Readonly<Record<(typeof ENTRY_COLUMNS)[number], string>> = {
  id: "text", received_at: "bigint", request_id: "text", instance_id: "text", key_id: "text", project: "text", route: "text", model: "text",
  provider: "text", upstream_model: "text", region: "text", stream: "integer", request_bytes: "bigint", client_address: "text", request_body: "text",
  outcome: "text", status: "integer", error_code: "text", finished_at: "bigint", reserved_cost: "double precision", reserved_charges: "text",
  ttfb_ms: "double precision", total_ms: "double precision", upstream_ms: "double precision", input_tokens: "bigint", cached_input_tokens: "bigint",
  output_tokens: "bigint", cost: "double precision", cost_estimated: "integer", saved_cost: "double precision", response_body: "text", attempts: "text", guardrails: "text",
  end_user: "text", team: "text", tags: "text", downgraded_from: "text",
};

/** One budget row the batch charges, with the batch's total reservation on it. */
interface RowWant {
  budgetId: string;
  period: string;
  /** Sum of the batch's amounts on the row (nanos). */
  amount: number;
  /** The row's limit as every charge on it has it (nanos). */
  limit: number;
  strict: boolean;
}

/**
 * The rows a batch charges when it can take the one-statement path: every charge a config
 * budget's (a stored budget's terms in force are read in the transaction), every row known to
 * exist, one limit and mode per row across the batch. Undefined otherwise.
 */
export function oneStatementRows(items: readonly AdmitItem[], knownRows: ReadonlySet<string>): RowWant[] | undefined {
  const rows = new Map<string, RowWant>();
  for (const { charges } of items) {
    for (const charge of charges) {
      const key = budgetKey(charge.budgetId, charge.period);
      const amount = toNanos(charge.amount);
      if (charge.stored || !knownRows.has(key) || amount < 0) return undefined;
      const limit = toNanos(charge.limit);
      const strict = charge.mode === "strict";
      const row = rows.get(key);
      if (row === undefined) rows.set(key, { budgetId: charge.budgetId, period: charge.period, amount, limit, strict });
      else if (row.limit !== limit || row.strict !== strict) return undefined;
      else row.amount += amount;
    }
  }
  return [...rows.values()];
}

/** A budget row as the statement returns it, after the batch's reservation. */
interface ReservedRow {
  ok: boolean;
  budget_id: string | null;
  period: string | null;
  limit_nanos: number | string | null;
  spent_nanos: number | string | null;
  reserved_nanos: number | string | null;
}

/** The statement's parameters: the wanted rows' columns and the entries' columns, each an array. */
type Param = "budget_ids" | "periods" | "amounts" | "limits" | "stricts" | "row_count" | "now" | (typeof ENTRY_COLUMNS)[number];

/** The statement (see the file's comment), compiled once per store: its text is the same for every batch. */
export function compileAdmitStatement(db: Kysely<Database>): Precompiled<Param> {
  return precompile<Param>((param) => {
    const array = (name: Param, type: string) => sql`${param(name)}::${sql.raw(type)}[]`;
    const query = sql`
      with want (budget_id, period, amount, lim, strict) as (
        select * from unnest(${array("budget_ids", "text")}, ${array("periods", "text")}, ${array("amounts", "bigint")}, ${array("limits", "bigint")}, ${array("stricts", "boolean")})
      ),
      locked as (
        select b.budget_id, b.period, b.spent_nanos, b.reserved_nanos
        from budget_usage b join want w on b.budget_id = w.budget_id and b.period = w.period
        order by b.budget_id collate "C", b.period collate "C"
        for update of b
      ),
      verdict as (
        select count(*) = ${param("row_count")} and coalesce(bool_and(not w.strict or l.spent_nanos + l.reserved_nanos + w.amount <= w.lim), true) as ok
        from locked l join want w on l.budget_id = w.budget_id and l.period = w.period
      ),
      reserved as (
        update budget_usage b set reserved_nanos = b.reserved_nanos + w.amount, limit_nanos = w.lim, updated_at = ${param("now")}
        from want w, verdict v
        where v.ok and b.budget_id = w.budget_id and b.period = w.period
        returning b.budget_id, b.period, b.limit_nanos, b.spent_nanos, b.reserved_nanos
      ),
      entered as (
        insert into journal_entry (${sql.join(ENTRY_COLUMNS.map((name) => sql.ref(name)))})
        select * from unnest(${sql.join(ENTRY_COLUMNS.map((name) => array(name, ENTRY_TYPES[name])))}) where (select ok from verdict)
        returning id
      )
      select v.ok, r.budget_id, r.period, r.limit_nanos, r.spent_nanos, r.reserved_nanos from verdict v left join reserved r on true`;
    return { compile: () => query.compile(db) };
  });
}

/** The statement's values for `items` charging `rows`. */
function admitValues(items: readonly AdmitItem[], rows: readonly RowWant[], now: number, instanceId: string | null): Record<Param, unknown> {
  const entries: EntryRow[] = items.map((item) => ({ ...entryValues(item, { admitted: true }, now), instance_id: instanceId }));
  const values: Partial<Record<Param, unknown>> = {
    budget_ids: rows.map((row) => row.budgetId),
    periods: rows.map((row) => row.period),
    amounts: rows.map((row) => row.amount),
    limits: rows.map((row) => row.limit),
    stricts: rows.map((row) => row.strict),
    row_count: rows.length,
    now,
  };
  for (const column of ENTRY_COLUMNS) values[column] = entries.map((entry) => entry[column] ?? null);
  return values as Record<Param, unknown>;
}

/**
 * Admits `items` in one statement when they all fit: their admissions (decided in order, as
 * the transaction decides them, from the rows as they were before the batch); undefined when a
 * row lacked room and nothing was written.
 */
export async function admitInOneStatement(
  statement: Precompiled<Param>,
  runPrepared: <R>(name: string, query: CompiledQuery<R>) => Promise<{ rows: R[] }>,
  items: readonly AdmitItem[],
  rows: readonly RowWant[],
  now: number,
  instanceId: string | null,
): Promise<Admission[] | undefined> {
  // The statement's text is the same for every batch (its values are arrays): prepared once per connection.
  const result = await runPrepared<ReservedRow>("renio_admit_fitting", statement(admitValues(items, rows, now, instanceId)) as CompiledQuery<ReservedRow>);
  if (result.rows[0]?.ok !== true) return undefined;
  const wanted = new Map(rows.map((row) => [budgetKey(row.budgetId, row.period), row]));
  const before = new Map<string, StoredRow>();
  for (const row of result.rows) {
    if (row.budget_id === null || row.period === null) continue;
    const key = budgetKey(row.budget_id, row.period);
    before.set(key, { limit: Number(row.limit_nanos), spent: Number(row.spent_nanos), reserved: Number(row.reserved_nanos) - wanted.get(key)!.amount });
  }
  const deltas: BudgetDeltas = new Map();
  const admissions = items.map((item) => decide(item.charges, () => undefined, before, deltas));
  if (admissions.some((admission) => !admission.admitted)) throw new Error("an admission batch reserved in one statement decided a refusal: the two admission paths disagree");
  return admissions;
}
