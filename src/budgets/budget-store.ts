import type { BudgetChange, NewBudget, StoredBudget } from "./budget-definition.ts";
import type { BudgetUsage } from "./budget-usage.ts";
import type { LimitOverride } from "./budget-plan.ts";
import type { TeamConfig } from "../config/attribution-schema.ts";

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
  /** The overrides in force now. */
  listOverrides(): Promise<BudgetOverride[]>;
  /** Sets a budget row's override (replacing one in force, which it returns). */
  setOverride(override: BudgetOverride): Promise<BudgetOverride | null>;
  /** Ends a budget row's override now; 404 `override_not_found` when none is in force. */
  endOverride(budgetId: string): Promise<BudgetOverride>;
  /** Teams created at run time. */
  listTeams(): Promise<TeamConfig[]>;
  /** 409 `team_exists` when the id is taken. */
  createTeam(team: TeamConfig): Promise<TeamConfig>;
  /** 404 `team_not_found`. */
  deleteTeam(id: string): Promise<TeamConfig>;
}

/** A budget's limit for a bounded window, ending by itself at `until` (epoch ms). */
export interface BudgetOverride extends LimitOverride {
  /** Who set it. */
  actor: string;
  /** Epoch ms. */
  createdAt: number;
}
