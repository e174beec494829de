import type { Admission, BudgetCharge } from "./budget-charge.ts";
import { decideCharges, type BudgetTotals } from "./budget-decision.ts";
import type { BudgetTerms } from "./budget-definition.ts";

/** A decision under the terms in force, and the charges as decided (the limits and modes in force). */
export interface TermsDecision {
  admission: Admission;
  charges: readonly BudgetCharge[];
}

/**
 * Decides `charges` under the terms in force when the call is decided, not those it was quoted
 * with: a budget changed at run time (limit, mode, pause) is read here, so a call quoted before
 * the change is decided by the new terms. `termsOf` answers for stored budgets (undefined: the
 * charge's own terms, as for config budgets). A paused budget refuses the call (`paused`); the
 * rest is {@link decideCharges}. The SQL admission transaction and the admission log's book
 * decide with this one rule.
 */
export function decideUnderTerms(
  charges: readonly BudgetCharge[],
  termsOf: (budgetId: string) => BudgetTerms | undefined,
  totalsOf: (charge: BudgetCharge) => BudgetTotals,
): TermsDecision {
  let current: BudgetCharge[] | undefined;
  for (let i = 0; i < charges.length; i++) {
    const charge = charges[i] as BudgetCharge;
    if (!charge.stored) continue;
    const terms = termsOf(charge.budgetId);
    if (terms === undefined) continue;
    if (terms.paused) return { admission: { admitted: false, budgetId: charge.budgetId, limit: terms.limit, remaining: 0, paused: true }, charges };
    const limit = charge.overridden ? charge.limit : terms.limit;
    if (limit === charge.limit && terms.mode === charge.mode) continue;
    current ??= [...charges];
    current[i] = { ...charge, limit, mode: terms.mode };
  }
  const decided = current ?? charges;
  return { admission: decideCharges(decided, totalsOf), charges: decided };
}
