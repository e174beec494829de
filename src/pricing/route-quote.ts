import { RelayError } from "../shared/relay-error.ts";
import type { CallPricing, CallQuote, QuoteInput } from "./call-pricing.ts";
import { dearestBounds } from "./price-dominance.ts";
import type { RoutePlan, Target } from "../routing/route-plan.ts";

/** A call's quotes: the reservation for the whole call, and each target's own price and bound. */
export interface RouteQuote {
  /** The call's quote: the dearest target's reservation (its charges are the call's). */
  readonly call: CallQuote;
  /** One target's quote (price, bound, output limit to enforce); undefined when the call cannot go there (e.g. its output limit is above that model's). */
  of(target: Target): CallQuote | undefined;
}

/** Per plan (and price book): the price keys whose reservation bounds every target's, and the first target of them. */
interface PlanBound {
  readonly dearestKeys: ReadonlySet<string>;
  readonly dearest: Target | undefined;
}

const bounds = new WeakMap<CallPricing, WeakMap<RoutePlan, PlanBound>>();

/**
 * Which targets' prices bound every other target's reservation in `plan`: worked out once per
 * plan (plans are built once per key, model and wire, and again after a reload), not per call.
 */
function planBound(pricing: CallPricing, plan: RoutePlan): PlanBound {
  let byPlan = bounds.get(pricing);
  if (byPlan === undefined) bounds.set(pricing, (byPlan = new WeakMap()));
  let bound = byPlan.get(plan);
  if (bound === undefined) {
    const distinct = new Map<string, Target>();
    for (const target of plan.targets) if (!distinct.has(priceKey(target))) distinct.set(priceKey(target), target);
    const targets = [...distinct.values()];
    const dearest = dearestBounds(targets.map((target) => pricing.priceOf(target.model, target.upstreamModel))).map((index) => targets[index]!);
    bound = { dearestKeys: new Set(dearest.map(priceKey)), dearest: dearest[0] };
    byPlan.set(plan, bound);
  }
  return bound;
}

/**
 * Quotes the call for the targets it may be sent to (each distinct public and upstream model
 * once) and reserves the dearest. The first target's refusal (unpriced model, output limit too
 * large, …) refuses the call, as before routing had several targets; another target's takes
 * only that target out of the call's way. When one target's price bounds every other's
 * (price-dominance.ts), only the first and that one are quoted for the call; the others when
 * an attempt first needs them. Otherwise every target is quoted, and the dearest reserved.
 */
export function quoteRoute(pricing: CallPricing, plan: RoutePlan, first: Target, input: Omit<QuoteInput, "model" | "upstreamModel">): RouteQuote {
  const firstQuote = pricing.quote({ ...input, model: first.model, upstreamModel: first.upstreamModel });
  const billedRetries = plan.stages[0]?.retry.billedRetries ?? 0;
  if (plan.targets.length === 1) return { call: withRoomFor(firstQuote, billedRetries), of: (target) => (target === first ? firstQuote : undefined) };
  const quotes = new Map<string, CallQuote | undefined>([[priceKey(first), firstQuote]]);
  const quoteOf = (target: Target): CallQuote | undefined => {
    const key = priceKey(target);
    if (quotes.has(key)) return quotes.get(key);
    let quote: CallQuote | undefined;
    try {
      quote = pricing.quote({ ...input, model: target.model, upstreamModel: target.upstreamModel });
    } catch (error) {
      if (!(error instanceof RelayError)) throw error;
    }
    quotes.set(key, quote);
    return quote;
  };
  const { dearestKeys, dearest } = planBound(pricing, plan);
  if (dearestKeys.has(priceKey(first))) return { call: withRoomFor(firstQuote, billedRetries), of: quoteOf };
  const dearestQuote = dearest === undefined ? undefined : quoteOf(dearest);
  if (dearestQuote !== undefined) {
    // It bounds every other target's amount and tokens; ties keep the first target's quote, as the full pass does.
    const call = dearestQuote.reserved > firstQuote.reserved ? dearestQuote : firstQuote;
    const tokens = Math.max(firstQuote.reservedTokens, dearestQuote.reservedTokens);
    return { call: withRoomFor(tokens === call.reservedTokens ? call : { ...call, reservedTokens: tokens }, billedRetries), of: quoteOf };
  }
  // No bounding price, or it refuses this request: every target is quoted.
  let call = firstQuote;
  for (const target of plan.targets) {
    const quote = quoteOf(target);
    if (quote !== undefined && quote.reserved > call.reserved) call = quote;
  }
  // Rate limits hold the most tokens any target may use.
  const tokens = Math.max(...[...quotes.values()].map((q) => q?.reservedTokens ?? 0));
  if (tokens !== call.reservedTokens) call = { ...call, reservedTokens: tokens };
  return { call: withRoomFor(call, billedRetries), of: quoteOf };
}

/**
 * The call's quote with room for `retries` more attempts after ones that may have been billed
 * (`retry.billedRetries`): the reservation (and each charge) is 1 + retries times the one
 * attempt's. Without it a strict budget's reservation covers one attempt that may have been
 * billed, and a timeout or reset is retried only when it still covers the next.
 */
function withRoomFor(quote: CallQuote, retries: number): CallQuote {
  if (retries === 0 || quote.reserved === 0) return quote;
  const reserved = quote.reserved * (1 + retries);
  for (const charge of quote.charges) charge.amount = reserved;
  return { ...quote, reserved, reservedTokens: quote.reservedTokens * (1 + retries), attempts: 1 + retries };
}

function priceKey(target: Target): string {
  return `${target.model}\u0000${target.upstreamModel}`;
}
