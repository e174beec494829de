import type { Admission, BudgetCharge } from "./budget-charge.ts";

/**
 * The cheaper model a call may be served by: the first strict charge's budget that names one
 * (`onExceeded: { model }`) and differs from the model asked for. The relay quotes that model
 * before admitting, so both answers are decided in the one admission commit.
 */
export function cheaperModelOf(charges: readonly BudgetCharge[], model: string): string | undefined {
  for (const charge of charges) if (charge.mode === "strict" && charge.downgrade !== undefined && charge.downgrade !== model) return charge.downgrade;
  return undefined;
}

/**
 * Whether a refusal gives way to the cheaper alternative: refused for a limit (not a pause) by a
 * budget that names a cheaper model. The alternative is then decided, by the same rule, against
 * every budget that applies to it; it is admitted only if its whole reservation fits.
 */
export function downgradeApplies(admission: Admission, charges: readonly BudgetCharge[]): boolean {
  if (admission.admitted || admission.paused === true) return false;
  return charges.some((charge) => charge.budgetId === admission.budgetId && charge.downgrade !== undefined);
}
