import { fromNanos, toNanos } from "./budget-amounts.ts";
import type { BudgetCharge } from "./budget-charge.ts";
import type { BudgetTotals } from "./budget-decision.ts";
import type { BudgetTerms } from "./budget-definition.ts";
import { addDelta, reservationDeltas, settlementDeltas, type BudgetDeltas } from "./budget-deltas.ts";
import { budgetKey } from "./budget-key.ts";
import { currentRows, type BudgetUsage } from "./budget-usage.ts";
import type { BudgetConfig } from "../config/config-schema.ts";
import { decideUnderTerms, type TermsDecision } from "./budget-terms.ts";

/**
 * The budget rows of one relay owning its SQLite file, in memory: what the database holds
 * (`stored`, as of the last applied batch) plus what the admission log holds that is not
 * applied yet (`pending`). Admissions are decided here, synchronously, by the same rule as
 * the SQL path (decideUnderTerms, with the terms `termsOf` holds when the call is decided); each applied batch re-reads its rows, so changes made to the
 * database by others (e.g. `renio budget reconcile`) are picked up.
 */
export interface BudgetBook {
  /** Decides `charges` under the terms in force and, when admitted, reserves them (as decided). */
  admit(charges: readonly BudgetCharge[]): TermsDecision;
  /** Takes back an admission's reservation (its log write failed: the call is refused). */
  unreserve(charges: readonly BudgetCharge[]): void;
  /** Settles a completed call: releases its reservations, charges the actual cost. */
  settle(charges: readonly BudgetCharge[], actualCost: number): void;
  /** A batch carrying `applied` was committed; `rows` are its budget rows as stored after it. */
  applied(rows: readonly BudgetUsage[], applied: BudgetDeltas): void;
  /** Spent and reserved of one budget row as the book has it (currency amounts; zero when unknown). */
  totals(budgetId: string, period: string): { spent: number; reserved: number };
  /** Each configured budget in the period `at` falls in (config order), as the book has it. */
  usage(budgets: readonly BudgetConfig[], at: Date): BudgetUsage[];
}

/** A book starting from the stored rows; `termsOf` gives stored budgets' terms in force (none: each charge's own). */
export function createBudgetBook(rows: readonly BudgetUsage[], termsOf: (budgetId: string) => BudgetTerms | undefined = () => undefined): BudgetBook {
  const stored = new Map<string, BudgetTotals>();
  const pending: BudgetDeltas = new Map();
  const store = (row: BudgetUsage) => stored.set(budgetKey(row.budgetId, row.period), { spent: toNanos(row.spent), reserved: toNanos(row.reserved) });
  rows.forEach(store);
  const totalsOf = (charge: Pick<BudgetCharge, "budgetId" | "period">): BudgetTotals => {
    const key = budgetKey(charge.budgetId, charge.period);
    const base = stored.get(key);
    const extra = pending.get(key);
    return { spent: (base?.spent ?? 0) + (extra?.spent ?? 0), reserved: (base?.reserved ?? 0) + (extra?.reserved ?? 0) };
  };
  return {
    admit(charges) {
      const decision = decideUnderTerms(charges, termsOf, totalsOf);
      if (decision.admission.admitted) reservationDeltas(pending, decision.charges);
      return decision;
    },
    unreserve(charges) {
      for (const charge of charges) addDelta(pending, charge, -toNanos(charge.amount), 0);
    },
    settle(charges, actualCost) {
      settlementDeltas(pending, charges, actualCost);
    },
    applied(rows, applied) {
      for (const [key, delta] of applied) {
        const left = pending.get(key);
        if (!left) continue;
        left.reserved -= delta.reserved;
        left.spent -= delta.spent;
        if (left.reserved === 0 && left.spent === 0) pending.delete(key);
      }
      rows.forEach(store);
    },
    totals(budgetId, period) {
      const { spent, reserved } = totalsOf({ budgetId, period });
      return { spent: fromNanos(spent), reserved: fromNanos(reserved) };
    },
    usage(budgets, at) {
      return currentRows(budgets, at).map((row, i) => {
        const { spent, reserved } = this.totals(row.budgetId, row.period);
        const limit = budgets[i]!.limit;
        return { ...row, limit, spent, reserved, remaining: limit - spent - reserved };
      });
    },
  };
}
