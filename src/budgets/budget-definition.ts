import type { BudgetConfig } from "../config/config-schema.ts";

/** A budget's mode: `strict` refuses calls past the limit, `observe` only records. */
export type BudgetMode = NonNullable<BudgetConfig["mode"]>;

/** A budget created at run time (admin API, `renio budgets set`), kept in the store. */
export interface StoredBudget {
  id: string;
  scope: BudgetConfig["scope"];
  period: BudgetConfig["period"];
  limit: number;
  mode: BudgetMode;
  /** When it cannot cover a call: refuse (absent), or serve the call with a cheaper model. */
  onExceeded?: BudgetConfig["onExceeded"];
  /** A paused budget refuses every call it covers (429 `budget_paused`) until resumed. */
  paused: boolean;
  /** Epoch ms. */
  createdAt: number;
  /** Epoch ms. */
  updatedAt: number;
}

/** What a new stored budget is made of (the store sets the times). */
export type NewBudget = Omit<StoredBudget, "createdAt" | "updatedAt">;

/** What may change in a stored budget. */
export type BudgetChange = Partial<Pick<StoredBudget, "limit" | "mode" | "paused">>;

/** What an admission applies to a budget's charge, read when the call is decided. */
export interface BudgetTerms {
  limit: number;
  mode: BudgetMode;
  paused: boolean;
}

/** The terms of a stored budget. */
export function termsOf(budget: Pick<StoredBudget, "limit" | "mode" | "paused">): BudgetTerms {
  return { limit: budget.limit, mode: budget.mode, paused: budget.paused };
}
