import type { BudgetMode } from "./budget-definition.ts";
import type { BudgetConfig } from "../config/config-schema.ts";
import type { BudgetUsageReader } from "./budget-store.ts";
import { configuredUsage, currentRows, type DefinedBudget } from "./budget-usage.ts";

/** One budget in force (the config's or created at run time) in its current period. */
export interface BudgetStatus {
  budgetId: string;
  scope: BudgetConfig["scope"];
  period: string;
  /** The mode in effect: the budget's own, else the config's `budget.mode`. */
  mode: BudgetMode;
  paused: boolean;
  limit: number;
  spent: number;
  reserved: number;
  remaining: number;
}

/** Every budget of `budgets` in the period `now` falls in, with its stored usage (zero if none yet); `renio budget status` and `GET /admin/budgets/status`. */
export async function budgetStatus(
  store: BudgetUsageReader,
  budgets: readonly DefinedBudget[],
  defaultMode: BudgetMode,
  now: Date,
): Promise<BudgetStatus[]> {
  const stored = await store.budgetUsage(currentRows(budgets, now));
  return configuredUsage(budgets, stored, now).map(({ budget: b, usage: u }) => ({
    budgetId: b.id,
    scope: b.scope,
    period: u.period,
    mode: b.mode ?? defaultMode,
    paused: b.paused ?? false,
    limit: u.limit,
    spent: u.spent,
    reserved: u.reserved,
    remaining: u.remaining,
  }));
}
