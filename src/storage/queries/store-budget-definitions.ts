import { scopeOfParts, scopeParts } from "../../budgets/budget-scope.ts";
import { sql, type Kysely, type Selectable } from "kysely";
import { fromNanos, toNanos } from "../../budgets/budget-amounts.ts";
import type { BudgetChange, BudgetTerms, NewBudget, StoredBudget } from "../../budgets/budget-definition.ts";
import { RelayError } from "../../shared/relay-error.ts";
import { BUDGET_DEFINITIONS_VERSION } from "../store-migrations.ts";
import type { BudgetDefinitionTable, Database } from "../store-schema.ts";

type Row = Selectable<BudgetDefinitionTable>;

/** The stored budgets in force (not deleted), by id. */
export async function listBudgetDefinitions(db: Kysely<Database>): Promise<StoredBudget[]> {
  const rows = await db.selectFrom("budget_definition").selectAll().where("deleted_at", "is", null).orderBy("id").execute();
  return rows.map(storedBudgetOf);
}

/** The counter every change to a stored budget adds one to (a relay re-reads the budgets when it moves). */
export async function budgetDefinitionsVersion(db: Kysely<Database>): Promise<number> {
  const row = await db.selectFrom("renio_meta").select("value").where("key", "=", BUDGET_DEFINITIONS_VERSION).executeTakeFirst();
  return Number(row?.value ?? 0);
}

/** Creates a stored budget; RelayError 409 `budget_exists` when one with its id is in force. A deleted one's id is reused. */
export async function createBudgetDefinition(trx: Kysely<Database>, budget: NewBudget, now: number): Promise<StoredBudget> {
  const values = { ...columnsOf(budget), created_at: now, updated_at: now, deleted_at: null };
  const inserted = await trx.insertInto("budget_definition").values(values).onConflict((oc) => oc.column("id").doNothing()).returning("id").execute();
  if (inserted.length === 0) {
    const revived = await trx.updateTable("budget_definition").set(values).where("id", "=", budget.id).where("deleted_at", "is not", null).returning("id").execute();
    if (revived.length === 0) throw new RelayError(409, "budget_exists", `A budget \`${budget.id}\` already exists; change it with PATCH /admin/budgets/${budget.id}`);
  }
  await bumpVersion(trx);
  return { ...budget, createdAt: now, updatedAt: now };
}

/** Changes a stored budget's limit, mode or pause; returns it before and after. RelayError 404 when no such budget is in force. */
export async function updateBudgetDefinition(
  trx: Kysely<Database>,
  id: string,
  change: BudgetChange,
  now: number,
  lockRows: boolean,
): Promise<{ before: StoredBudget; after: StoredBudget }> {
  const before = await lockedBudget(trx, id, lockRows);
  const after: StoredBudget = { ...before, ...change, updatedAt: now };
  await trx.updateTable("budget_definition").set({ ...columnsOf(after), updated_at: now }).where("id", "=", id).execute();
  await bumpVersion(trx);
  return { before, after };
}

/** Deletes a stored budget (its usage rows stay); returns it. RelayError 404 when no such budget is in force. */
export async function deleteBudgetDefinition(trx: Kysely<Database>, id: string, now: number, lockRows: boolean): Promise<StoredBudget> {
  const before = await lockedBudget(trx, id, lockRows);
  await trx.updateTable("budget_definition").set({ deleted_at: now, updated_at: now }).where("id", "=", id).execute();
  await bumpVersion(trx);
  return before;
}

/** A definition row as the admission transaction reads it (PostgreSQL returns bigints as strings). */
export interface BudgetTermsRow {
  id: string;
  limit_nanos: number | string;
  mode: string;
  paused: number | string;
  deleted_at: number | string | null;
}

/** The terms a read definition row puts in force: a deleted budget's charge is decided as observe (it no longer refuses). */
export function termsOfRow(row: BudgetTermsRow, charged: { limit: number }): BudgetTerms {
  if (row.deleted_at !== null) return { limit: charged.limit, mode: "observe", paused: false };
  return { limit: fromNanos(Number(row.limit_nanos)), mode: row.mode === "observe" ? "observe" : "strict", paused: Number(row.paused) === 1 };
}

/**
 * The budget row, locked for the change (PostgreSQL: FOR UPDATE; SQLite: the write transaction).
 * The admission transaction reads it FOR SHARE, so a change and an admission are ordered.
 */
async function lockedBudget(trx: Kysely<Database>, id: string, lockRows: boolean): Promise<StoredBudget> {
  const select = trx.selectFrom("budget_definition").selectAll().where("id", "=", id).where("deleted_at", "is", null);
  const row = await (lockRows ? select.forUpdate() : select).executeTakeFirst();
  if (row === undefined) throw new RelayError(404, "budget_not_found", `No budget \`${id}\` in the store`);
  return storedBudgetOf(row);
}

/** Adds one to the budget definitions' version (relays re-read budgets, overrides and teams when it moves). */
export async function bumpVersion(trx: Kysely<Database>): Promise<void> {
  // One statement: concurrent changes on PostgreSQL each add one (the row is locked by the update).
  await sql`update renio_meta set value = cast(cast(value as integer) + 1 as text) where key = ${BUDGET_DEFINITIONS_VERSION}`.execute(trx);
}

function columnsOf(budget: NewBudget) {
  const scope = scopeParts(budget.scope);
  return {
    id: budget.id,
    scope_kind: scope.kind,
    scope_value: scope.value,
    on_exceeded: typeof budget.onExceeded === "object" ? budget.onExceeded.model : null,
    period: budget.period,
    limit_nanos: toNanos(budget.limit),
    mode: budget.mode,
    paused: budget.paused ? 1 : 0,
  };
}

function storedBudgetOf(row: Row): StoredBudget {
  const budget: StoredBudget = {
    id: row.id,
    scope: scopeOfParts(row.scope_kind, row.scope_value ?? ""),
    period: row.period as StoredBudget["period"],
    limit: fromNanos(Number(row.limit_nanos)),
    mode: row.mode === "observe" ? "observe" : "strict",
    paused: Number(row.paused) === 1,
    createdAt: Number(row.created_at),
    updatedAt: Number(row.updated_at),
  };
  if (row.on_exceeded !== null) budget.onExceeded = { model: row.on_exceeded };
  return budget;
}
