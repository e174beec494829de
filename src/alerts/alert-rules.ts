import type { Config } from "../config/config-schema.ts";

/** The alerts of one budget: thresholds in percent of its limit, and the webhook told. */
export interface BudgetAlertRule {
  thresholds: readonly number[];
  webhook: string;
}

/**
 * What the store needs to write alert events in the transaction that changes a budget row:
 * plain data (it crosses to the storage thread, which keeps a Map a Map), keyed by budget id so
 * budgets from any source get alerts by the same rule.
 */
export interface AlertRules {
  currency: string;
  /** Budget id → its alerts (budgets without alerts are absent). */
  budgets: ReadonlyMap<string, BudgetAlertRule>;
  /** Webhook told about reservations a crash left pending; null: none. */
  interruptedWebhook: string | null;
}

/** No alerts at all (tools, tests, a config that sets none). */
export const NO_ALERTS: AlertRules = { currency: "USD", budgets: new Map(), interruptedWebhook: null };

/** The alert rules of a config. */
export function alertRulesOf(config: Pick<Config, "budgets" | "alerts" | "budget">): AlertRules {
  const budgets = new Map<string, BudgetAlertRule>();
  for (const budget of config.budgets) {
    if (budget.alerts) budgets.set(budget.id, { thresholds: [...new Set(budget.alerts.thresholds)].sort((a, b) => a - b), webhook: budget.alerts.webhook });
  }
  return { currency: config.budget.currency, budgets, interruptedWebhook: config.alerts.interruptedWebhook ?? null };
}

/**
 * The thresholds (percent) that `spent` has reached against `limit`, both in nano-units:
 * spent × 100 ≥ limit × threshold (no division, so 50 % of a limit is reached at exactly half
 * of it). A zero limit has reached every threshold once anything is spent.
 */
export function reachedThresholds(rule: BudgetAlertRule, spentNanos: number, limitNanos: number): number[] {
  if (spentNanos <= 0) return [];
  return rule.thresholds.filter((t) => spentNanos * 100 >= limitNanos * t);
}
