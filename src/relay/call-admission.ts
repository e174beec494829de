import type { Admission, BudgetCharge } from "../budgets/budget-charge.ts";
import type { AdmitAlternative } from "../journal/journal-store.ts";
import type { Ledger } from "../journal/ledger.ts";
import { UNLIMITED, type RateTicket } from "../limits/rate-limiter.ts";
import type { JournalStart } from "../shared/journal-records.ts";
import { refusalOf } from "./call-refusals.ts";

/** A call past its rate limits and its journal admission (which may still refuse it for a budget). */
export interface AdmittedCall {
  readonly limits: RateTicket;
  readonly admission: Admission;
}

/** What admitting a call writes: its entry, what it reserves, and the cheaper call it may take instead. */
export interface CallAdmission {
  readonly start: JournalStart;
  readonly charges: readonly BudgetCharge[];
  readonly cheaper: AdmitAlternative | undefined;
  /** performance.now() when the call arrived. */
  readonly startedAt: number;
}

/**
 * Decides a call's rate limits and admits it to the journal (entry written durably, budgets
 * reserved). Limits kept in memory have decided already (`deciding` is a ticket): the admission
 * follows, so a limited call writes no admitted entry. Limits that need a round trip (shared in
 * Redis, or kept by another event loop) are decided while the admission's durable write runs, so
 * the round trip hides behind the write; a call they refuse has its admitted entry closed as
 * refused with the limit's status and code, and what it reserved released, before the refusal
 * is thrown. Nothing is forwarded until both have answered. Throws the limit's refusal, or the
 * store's error (fail closed); a budget refusal is returned, for the relay's answer.
 */
export async function admitCall(ledger: Ledger, deciding: RateTicket | Promise<RateTicket>, call: CallAdmission): Promise<AdmittedCall> {
  if (!(deciding instanceof Promise)) {
    try {
      return { limits: deciding, admission: await ledger.admit(call.start, call.charges, call.cheaper) };
    } catch (error) {
      deciding.cancel();
      throw error;
    }
  }
  const [decided, admitted] = await Promise.allSettled([deciding, ledger.admit(call.start, call.charges, call.cheaper)]);
  if (admitted.status === "rejected") {
    if (decided.status === "fulfilled") decided.value.cancel();
    throw admitted.reason;
  }
  const admission = admitted.value;
  if (decided.status === "fulfilled") return { limits: decided.value, admission };
  // Refused by a budget too: the journal holds that refusal, so it is the answer.
  if (!admission.admitted) return { limits: UNLIMITED, admission };
  const refusal = refusalOf(decided.reason, call.startedAt);
  const charges = admission.downgraded && call.cheaper !== undefined ? call.cheaper.charges : call.charges;
  ledger.complete(call.start.id, { ...refusal, cost: charges.length > 0 ? 0 : null, costEstimated: false, attempts: [] }, charges, 0);
  throw decided.reason;
}
