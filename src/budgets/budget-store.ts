import type { BudgetChange, NewBudget, StoredBudget } from "./budget-definition.ts";
import type { BudgetUsage } from "./budget-usage.ts";

/** The budgets' store port: the budgets created at run time, and the budget rows as stored. storage/ implements it. */

/** The budget rows as stored (the journal's transactions write them). */
export interface BudgetUsageReader {
  /** Stored budget usage rows (all, or only the given budget/period pairs). */
  budgetUsage(keys?: ReadonlyArray<{ budgetId: string; period: string }>): Promise<BudgetUsage[]>;
}

/**
 * Budgets created at run time (admin API, `renio budgets`). Every change is one transaction
 * that also adds one to a version counter, which relays poll (one cheap read) to re-read the
 * budgets. Errors are RelayErrors: 404 `budget_not_found`, 409 `budget_exists`.
 */
export interface BudgetDefinitionStore {
  /** The stored budgets in force, by id. */
  listBudgets(): Promise<StoredBudget[]>;
  /** The counter every change adds one to. */
  budgetsVersion(): Promise<number>;
  createBudget(budget: NewBudget): Promise<StoredBudget>;
  updateBudget(id: string, change: BudgetChange): Promise<{ before: StoredBudget; after: StoredBudget }>;
  /** Deletes the definition (the budget stops applying); its usage rows stay. Returns it as it was. */
  deleteBudget(id: string): Promise<StoredBudget>;
}
