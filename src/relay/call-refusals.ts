import type { Admission } from "../budgets/budget-charge.ts";
import { periodEnd } from "../budgets/budget-plan.ts";
import type { KeyRefusal } from "../keys/keyring.ts";
import type { RoutePlan } from "../routing/route-plan.ts";
import type { JournalCompletion } from "../shared/journal-records.ts";
import { formatAmount } from "../shared/money.ts";
import { RelayError } from "../shared/relay-error.ts";
import type { CallQuote } from "../pricing/call-pricing.ts";
import { reservationReason } from "../pricing/reservation-reason.ts";

/** The answers of calls the relay refuses before forwarding: keys, budgets, cooling targets; and how such a call ended. */

/** The refusal when every target of the call's route is cooling down: nothing is sent. */
export function coolingDown(plan: RoutePlan, now: number): never {
  const until = Math.min(...plan.targets.map((target) => target.health.openUntil));
  const seconds = Math.max(1, Math.ceil((until - now) / 1000));
  throw new RelayError(503, "targets_cooling_down", `Every target of \`${plan.model}\` is cooling down after repeated failures; retry in ${seconds} s`, { "retry-after": String(seconds) });
}

/** How a call that was never forwarded ended, for the observer. */
export function refusalOf(error: unknown, startedAt: number): JournalCompletion {
  const known = error instanceof RelayError;
  return {
    outcome: !known ? "relay_error" : error.code === "client_aborted" ? "client_aborted" : "refused",
    status: known ? error.status : 500,
    errorCode: known ? error.code : "internal_error",
    ttfbMs: null,
    totalMs: performance.now() - startedAt,
    upstreamMs: null,
    usage: null,
    cost: null,
    responseBody: null,
  };
}

/** The longest wait (s) the official SDKs honour in `retry-after` before retrying; longer ones they replace by their own backoff. */
const SDK_MAX_RETRY_AFTER_S = 60;

/**
 * A budget refusal, naming the cause and the fix: a budget with no room left says when it
 * resets; otherwise the message says what the call's reservation is made of (`quote`) and how to
 * lower it through the caller's output-limit field (`field`). Retrying helps only once the
 * refused charge's period ends: `retry-after` says when (day and month budgets), and unless that
 * is within what an SDK waits for, `x-should-retry: false` stops the SDKs from spending their
 * retries on it (a paused budget gets that from the error envelope, as every refusal does).
 */
export function budgetExceeded(admission: Extract<Admission, { admitted: false }>, currency: string, quote: CallQuote, field: string, now: number): RelayError {
  if (admission.paused) {
    return new RelayError(429, "budget_paused", `Budget \`${admission.budgetId}\` is paused: it refuses every call it covers until an operator resumes it (\`renio budgets resume ${admission.budgetId}\`)`, { "x-renio-budget": admission.budgetId });
  }
  const remaining = Math.max(0, admission.remaining);
  const period = quote.charges.find((charge) => charge.budgetId === admission.budgetId)?.period ?? "total";
  const endsAt = periodEnd(period);
  const resetInSeconds = endsAt === null ? null : Math.max(1, Math.ceil((endsAt - now) / 1000));
  const retry: Record<string, string> = resetInSeconds === null ? {} : { "retry-after": String(resetInSeconds) };
  if (resetInSeconds === null || resetInSeconds > SDK_MAX_RETRY_AFTER_S) retry["x-should-retry"] = "false";
  const limit = `${money(admission.limit)} ${currency}`;
  const resets = endsAt === null ? "it does not reset; an operator can raise its limit" : `it resets at ${new Date(endsAt).toISOString()}, or an operator can raise its limit`;
  const reason = reservationReason(quote, currency, field);
  const message =
    remaining === 0 || reason === undefined
      ? `Budget \`${admission.budgetId}\` cannot cover this request: its limit of ${limit} is spent or held by calls in flight (${money(remaining)} ${currency} remaining); ${resets}`
      : `Budget \`${admission.budgetId}\` cannot cover this request: ${reason.made}; ${money(remaining)} ${currency} of its ${limit} limit remains. ` +
        `To fit, ${reason.fix}; or wait: ${resets}`;
  return new RelayError(429, "budget_exceeded", message, { "x-renio-budget": admission.budgetId, "x-renio-budget-remaining": money(remaining), ...retry });
}

export function budgetHeaders(admission: Extract<Admission, { admitted: true }>): Record<string, string> {
  if (admission.remaining === undefined) return {};
  return { "x-renio-budget": admission.remaining.budgetId, "x-renio-budget-remaining": money(admission.remaining.amount) };
}

const money = formatAmount;

/** The 401 for a secret that is not (or no longer) a live key: says revoked, expired or rotated out when it was one. */
export function refusedKey(refusal: KeyRefusal | undefined): RelayError {
  if (refusal === undefined) return new RelayError(401, "invalid_api_key", "Invalid API key: this relay has no such key; use a key from its config or one issued with `renio keys create`");
  const at = new Date(refusal.at).toISOString();
  if (refusal.reason === "revoked") return new RelayError(401, "key_revoked", `This API key was revoked (key "${refusal.keyId}", ${at})`);
  if (refusal.reason === "expired") return new RelayError(401, "key_expired", `This API key expired (key "${refusal.keyId}", ${at})`);
  return new RelayError(401, "key_rotated", `This API key was rotated and its grace period ended (key "${refusal.keyId}", ${at}); use the new secret`);
}
