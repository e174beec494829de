import type { Config } from "../config/config-schema.ts";
import type { JournalCompletion, JournalStart } from "../shared/journal-records.ts";
import type { Usage } from "../shared/usage.ts";
import { CallAttempts } from "../routing/call-attempts.ts";
import { outcomeOf, type CallEnd } from "../routing/call-end.ts";
import type { CallPricing } from "../pricing/call-pricing.ts";
import type { Target } from "../routing/route-plan.ts";
import type { RouteQuote } from "../pricing/route-quote.ts";
import { storedBody } from "../journal/stored-body.ts";
import type { CooldownSettings } from "../routing/target-health.ts";
import { sumAmounts } from "../shared/money.ts";

/** The attempts of a call priced by `quotes`: each target charged up to its reservation, all of them under a strict budget up to the call's. */
export function attemptsFor(quotes: RouteQuote, clock: () => number, cooldown: CooldownSettings): CallAttempts {
  const quote = quotes.call;
  const strict = quote.charges.some((charge) => charge.mode === "strict");
  return new CallAttempts({ boundOf: (target) => boundOf(quotes, target), ceiling: strict ? quote.reserved : undefined }, clock, cooldown);
}

/** A call settled: its journal completion, what it is charged, and the provider's final usage (null without one). */
export interface Settlement {
  readonly completion: JournalCompletion;
  readonly cost: number;
  readonly finalUsage: Usage | null;
}

/** What settling a call needs besides how it ended. */
export interface SettlementInput {
  readonly pricing: CallPricing;
  readonly journal: Config["journal"];
  readonly start: JournalStart;
  readonly quotes: RouteQuote;
  readonly attempts: CallAttempts;
  /** performance.now() when the call arrived. */
  readonly startedAt: number;
}

/**
 * Closes the call's last attempt and prices the call: the last attempt at its target's price, the
 * ones before it as they may have been billed (call-attempts.ts). Never throws: Renio's own failure
 * here still settles, charging the reservation when anything may have been billed.
 */
export function settleCall({ pricing, journal, start, quotes, attempts, startedAt }: SettlementInput, end: CallEnd): Settlement {
  const quote = quotes.call;
  // What was relayed of the answer, if anything was; a stream cut before the provider's final usage has only a lower bound.
  const relayed = end.kind === "failed" ? undefined : end;
  const usage = relayed?.usage ?? null;
  const finalUsage = relayed?.usageFinal ? usage : null;
  const { outcome, status, errorCode } = outcomeOf(end);
  try {
    const served = attempts.last!;
    const servedQuote = quotes.of(served) ?? quote;
    // Without final usage settle() charges the reservation.
    const last = pricing.settle(servedQuote, finalUsage, end.mayHaveBeenBilled);
    attempts.finish(end, servedQuote.price === null ? null : last);
    const cost = sumAmounts([last, attempts.charged]);
    const responseBody = relayed?.responseBody ?? null;
    const completion: JournalCompletion = {
      outcome,
      status,
      ttfbMs: end.firstByteAt === null ? null : end.firstByteAt - startedAt,
      totalMs: performance.now() - startedAt,
      upstreamMs: end.upstreamMs,
      usage,
      cost: quote.price === null ? null : cost,
      // settle() charged a reservation: no final usage and the provider may have billed the call, or an earlier attempt was.
      costEstimated: quote.price !== null && ((finalUsage === null && end.mayHaveBeenBilled) || attempts.estimated),
      errorCode,
      responseBody: journal.bodies === "full" && responseBody !== null ? storedBody(journal, responseBody) : null,
      attempts: attempts.records,
    };
    servedBy(start, completion, served);
    return { completion, cost, finalUsage };
  } catch (error) {
    // Renio's own failure while settling: never leave the entry open; charge the reservation.
    console.error(`renio: settling ${start.id} failed: ${error instanceof Error ? error.message : String(error)}`);
    const cost = end.mayHaveBeenBilled || attempts.charged > 0 ? quote.reserved : 0;
    const completion: JournalCompletion = { ...RELAY_ERROR, status, totalMs: performance.now() - startedAt, usage, cost: quote.price === null ? null : cost, costEstimated: quote.price !== null && cost > 0, attempts: attempts.records };
    return { completion, cost, finalUsage };
  }
}

/** What an attempt on `target` is charged when it may have been billed without usage: its reservation (null without a price). */
function boundOf(quotes: RouteQuote, target: Target): number | null {
  const quote = quotes.of(target);
  return quote === undefined || quote.price === null ? null : quote.reserved;
}

/** Records where the call was served (or last tried) when a retry or fallback moved it from the start's target. */
function servedBy(start: JournalStart, completion: JournalCompletion, served: Target): void {
  if (served.provider.id === start.provider && served.upstreamModel === start.upstreamModel) return;
  start.provider = completion.provider = served.provider.id;
  start.upstreamModel = completion.upstreamModel = served.upstreamModel;
  start.region = completion.region = served.provider.region;
}

/** The fields of a completion for Renio's own unexpected failure. */
const RELAY_ERROR = { outcome: "relay_error", status: 500, errorCode: "internal_error", ttfbMs: null, totalMs: 0, upstreamMs: null, usage: null, cost: null, responseBody: null } as const satisfies JournalCompletion;
