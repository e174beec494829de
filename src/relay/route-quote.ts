import { RelayError } from "../shared/relay-error.ts";
import type { CallPricing, CallQuote, QuoteInput } from "./call-pricing.ts";
import type { RoutePlan, Target } from "./route-plan.ts";

/** A call's quotes: the reservation for the whole call, and each target's own price and bound. */
export interface RouteQuote {
  /** The call's quote: the dearest target's reservation (its charges are the call's). */
  readonly call: CallQuote;
  /** One target's quote (price, bound, output limit to enforce); undefined when the call cannot go there (e.g. its output limit is above that model's). */
  of(target: Target): CallQuote | undefined;
}

/**
 * Quotes the call for every target it may be sent to (each distinct public and upstream model
 * once) and reserves the dearest. The first target's refusal (unpriced model, output limit too
 * large, …) refuses the call, as before routing had several targets; another target's takes
 * only that target out of the call's way.
 */
export function quoteRoute(pricing: CallPricing, plan: RoutePlan, first: Target, input: Omit<QuoteInput, "model" | "upstreamModel">): RouteQuote {
  const firstQuote = pricing.quote({ ...input, model: first.model, upstreamModel: first.upstreamModel });
  const billedRetries = plan.stages[0]?.retry.billedRetries ?? 0;
  if (plan.targets.length === 1) return { call: withRoomFor(firstQuote, billedRetries), of: (target) => (target === first ? firstQuote : undefined) };
  const quotes = new Map<string, CallQuote | undefined>([[priceKey(first), firstQuote]]);
  let call = firstQuote;
  for (const target of plan.targets) {
    const key = priceKey(target);
    if (quotes.has(key)) continue;
    let quote: CallQuote | undefined;
    try {
      quote = pricing.quote({ ...input, model: target.model, upstreamModel: target.upstreamModel });
    } catch (error) {
      if (!(error instanceof RelayError)) throw error;
    }
    quotes.set(key, quote);
    if (quote !== undefined && quote.reserved > call.reserved) call = quote;
  }
  // Rate limits hold the most tokens any target may use.
  const tokens = Math.max(...[...quotes.values()].map((q) => q?.reservedTokens ?? 0));
  if (tokens !== call.reservedTokens) call = { ...call, reservedTokens: tokens };
  return { call: withRoomFor(call, billedRetries), of: (target) => quotes.get(priceKey(target)) };
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
  return { ...quote, reserved, reservedTokens: quote.reservedTokens * (1 + retries) };
}

function priceKey(target: Target): string {
  return `${target.model}\u0000${target.upstreamModel}`;
}
