import type { BudgetConfig } from "../config/config-schema.ts";
import type { BudgetMode, BudgetTerms, StoredBudget } from "./budget-definition.ts";
import { termsOf } from "./budget-definition.ts";
import { createBudgetPlan, type BudgetPlan } from "./budget-plan.ts";

/**
 * The budgets in force in this relay: the config's, then those in the store (as last read).
 * `replace` swaps the stored ones at once: the next call is quoted with the new plan, and
 * admissions decided from then on read the new terms. A stored budget with a config budget's
 * id is ignored (the admin API refuses to create one; the config may gain it later).
 */
export interface BudgetCatalog {
  /** Which budgets a call is charged against, now. */
  plan(): BudgetPlan;
  /** The terms in force of a stored budget; undefined for config budgets and unknown ids. */
  termsOf(budgetId: string): BudgetTerms | undefined;
  /** The stored budgets in force. */
  stored(): readonly StoredBudget[];
  replace(stored: readonly StoredBudget[]): void;
  /** Swaps the config's budgets (a reload): the stored ones stay. */
  reconfigure(config: readonly BudgetConfig[], defaultMode: BudgetMode): void;
}

/** A catalog of the config's budgets, with no stored budget until the first `replace`. */
export function createBudgetCatalog(config: readonly BudgetConfig[], defaultMode: BudgetMode): BudgetCatalog {
  let configured = config;
  let mode = defaultMode;
  /** Every stored budget as last read; those with a config budget's id are not in force. */
  let read: readonly StoredBudget[] = [];
  let stored: readonly StoredBudget[] = [];
  let terms = new Map<string, BudgetTerms>();
  let plan = createBudgetPlan(config, defaultMode);
  const rebuild = (): void => {
    const configIds = new Set(configured.map((budget) => budget.id));
    stored = read.filter((budget) => !configIds.has(budget.id));
    terms = new Map(stored.map((budget) => [budget.id, termsOf(budget)]));
    plan = createBudgetPlan([...configured, ...stored.map(({ id, scope, period, limit, mode }) => ({ id, scope, period, limit, mode, stored: true }))], mode);
  };
  return {
    plan: () => plan,
    termsOf: (budgetId) => terms.get(budgetId),
    stored: () => stored,
    replace(next) {
      read = next;
      rebuild();
    },
    reconfigure(nextConfig, nextMode) {
      configured = nextConfig;
      mode = nextMode;
      rebuild();
    },
  };
}
