import type { Kysely } from "kysely";
import { fromNanos, toNanos } from "../../budgets/budget-amounts.ts";
import type { BudgetOverride } from "../../budgets/budget-store.ts";
import { RelayError } from "../../shared/relay-error.ts";
import type { Database } from "../store-schema.ts";
import { bumpVersion } from "./store-budget-definitions.ts";

/** The overrides that have not ended at `now`, by budget row id. */
export async function listBudgetOverrides(db: Kysely<Database>, now: number): Promise<BudgetOverride[]> {
  const rows = await db.selectFrom("budget_override").selectAll().where("until", ">", now).orderBy("budget_id").execute();
  return rows.map((row) => ({ budgetId: row.budget_id, limit: fromNanos(Number(row.limit_nanos)), until: Number(row.until), actor: row.actor, createdAt: Number(row.created_at) }));
}

/** Sets (or replaces) the override of a budget row; returns the one it replaced, if still in force. */
export async function setBudgetOverride(trx: Kysely<Database>, override: BudgetOverride): Promise<BudgetOverride | null> {
  const before = await overrideOf(trx, override.budgetId, override.createdAt);
  const values = { budget_id: override.budgetId, limit_nanos: toNanos(override.limit), until: override.until, actor: override.actor, created_at: override.createdAt };
  await trx
    .insertInto("budget_override")
    .values(values)
    .onConflict((oc) => oc.column("budget_id").doUpdateSet({ limit_nanos: values.limit_nanos, until: values.until, actor: values.actor, created_at: values.created_at }))
    .execute();
  await bumpVersion(trx);
  return before;
}

/** Ends a budget row's override now; RelayError 404 `override_not_found` when none is in force. */
export async function endBudgetOverride(trx: Kysely<Database>, budgetId: string, now: number): Promise<BudgetOverride> {
  const before = await overrideOf(trx, budgetId, now);
  if (before === null) throw new RelayError(404, "override_not_found", `Budget \`${budgetId}\` has no override in force`);
  await trx.deleteFrom("budget_override").where("budget_id", "=", budgetId).execute();
  await bumpVersion(trx);
  return before;
}

async function overrideOf(trx: Kysely<Database>, budgetId: string, now: number): Promise<BudgetOverride | null> {
  const row = await trx.selectFrom("budget_override").selectAll().where("budget_id", "=", budgetId).where("until", ">", now).executeTakeFirst();
  return row === undefined ? null : { budgetId: row.budget_id, limit: fromNanos(Number(row.limit_nanos)), until: Number(row.until), actor: row.actor, createdAt: Number(row.created_at) };
}
