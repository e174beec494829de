import type { BudgetConfig } from "../config/config-schema.ts";
import { budgetKey } from "./budget-key.ts";
import { periodOf } from "./budget-plan.ts";
import type { StoredBudget } from "./budget-definition.ts";

/** A budget as status and reports read it: the config's, or one created at run time. */
export type DefinedBudget = Pick<BudgetConfig, "id" | "scope" | "period" | "limit" | "mode"> & { readonly paused?: boolean };

/** The config's budgets, then the store's (created at run time) whose ids the config does not use: every budget in force. */
export function budgetsInForce(config: readonly BudgetConfig[], stored: readonly StoredBudget[]): DefinedBudget[] {
  const ids = new Set(config.map((b) => b.id));
  return [...config, ...stored.filter((b) => !ids.has(b.id)).map(({ id, scope, period, limit, mode, paused }) => ({ id, scope, period, limit, mode, paused }))];
}

/** Usage of one budget in one period (currency amounts). */
export interface BudgetUsage {
  budgetId: string;
  period: string;
  limit: number;
  spent: number;
  reserved: number;
  /** limit − spent − reserved (may be negative for observe budgets). */
  remaining: number;
}

/** One configured budget in the period `now` falls in, with its usage. */
export interface ConfiguredUsage {
  budget: DefinedBudget;
  /** At the configured limit; zero spent and reserved when no row is stored for the period yet. */
  usage: BudgetUsage;
  /** Whether `stored` held the row. */
  stored: boolean;
}

/** The row (budget and period) of each configured budget in the period `now` falls in, in config order. */
export function currentRows(budgets: readonly DefinedBudget[], now: Date): Array<{ budgetId: string; period: string }> {
  return budgets.map((b) => ({ budgetId: b.id, period: periodOf(b.period, now) }));
}

/** Each configured budget in its current period (config order), with its stored usage or a zero row. */
export function configuredUsage(budgets: readonly DefinedBudget[], stored: readonly BudgetUsage[], now: Date): ConfiguredUsage[] {
  const byKey = new Map(stored.map((row) => [budgetKey(row.budgetId, row.period), row]));
  return budgets.map((budget) => {
    const period = periodOf(budget.period, now);
    const row = byKey.get(budgetKey(budget.id, period));
    const spent = row?.spent ?? 0;
    const reserved = row?.reserved ?? 0;
    const usage = { budgetId: budget.id, period, limit: budget.limit, spent, reserved, remaining: budget.limit - spent - reserved };
    return { budget, usage, stored: row !== undefined };
  });
}
