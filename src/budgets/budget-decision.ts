import { fromNanos, toNanos } from "./budget-amounts.ts";
import type { Admission, BudgetCharge } from "./budget-charge.ts";

/** A budget row's amounts, in exact nano-units of the currency. */
export interface BudgetTotals {
  spent: number;
  reserved: number;
}

/**
 * Decides whether `charges` fit, given each charge's row totals (`totalsOf`): a strict charge
 * fits iff spent + reserved + amount ≤ limit; observe charges always fit. Pure: the caller
 * reserves the amounts when the call is admitted. The SQL admission path and the admission
 * log's in-memory book decide with this one rule.
 */
export function decideCharges(charges: readonly BudgetCharge[], totalsOf: (charge: BudgetCharge) => BudgetTotals): Admission {
  let tightest: { budgetId: string; amount: number } | undefined;
  for (const charge of charges) {
    const { spent, reserved } = totalsOf(charge);
    const limit = toNanos(charge.limit);
    const remaining = limit - spent - reserved - toNanos(charge.amount);
    if (charge.mode === "strict" && remaining < 0) {
      return { admitted: false, budgetId: charge.budgetId, limit: charge.limit, remaining: fromNanos(Math.max(0, limit - spent - reserved)) };
    }
    if (!tightest || remaining < tightest.amount) tightest = { budgetId: charge.budgetId, amount: remaining };
  }
  return tightest ? { admitted: true, remaining: { budgetId: tightest.budgetId, amount: fromNanos(tightest.amount) } } : { admitted: true };
}
