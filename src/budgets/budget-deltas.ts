import { toNanos } from "./budget-amounts.ts";
import type { BudgetCharge } from "./budget-charge.ts";
import { budgetKey } from "./budget-key.ts";

/** A change to one budget row, in exact nano-units of the currency. */
export interface BudgetDelta {
  budgetId: string;
  period: string;
  reserved: number;
  spent: number;
  /** The row's limit as of the latest admission in the change (config may have changed it); absent: unchanged. */
  limit?: number;
}

/** Changes to budget rows, by budgetKey. */
export type BudgetDeltas = Map<string, BudgetDelta>;

/** Adds a change to one row's delta. */
export function addDelta(deltas: BudgetDeltas, row: { budgetId: string; period: string }, reserved: number, spent: number): BudgetDelta {
  const key = budgetKey(row.budgetId, row.period);
  let delta = deltas.get(key);
  if (delta === undefined) {
    delta = { budgetId: row.budgetId, period: row.period, reserved: 0, spent: 0 };
    deltas.set(key, delta);
  }
  delta.reserved += reserved;
  delta.spent += spent;
  return delta;
}

/** What an admitted call does to its rows: each charge reserved (at the charge's limit). */
export function reservationDeltas(deltas: BudgetDeltas, charges: readonly BudgetCharge[]): void {
  for (const charge of charges) addDelta(deltas, charge, toNanos(charge.amount), 0).limit = toNanos(charge.limit);
}

/** What a completed call does to its rows: each reservation released, the actual cost spent. */
export function settlementDeltas(deltas: BudgetDeltas, charges: readonly BudgetCharge[], actualCost: number): void {
  const spent = toNanos(actualCost);
  for (const charge of charges) addDelta(deltas, charge, -toNanos(charge.amount), spent);
}
