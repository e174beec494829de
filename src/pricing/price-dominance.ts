import { DEFAULT_OUTPUT_RESERVATION } from "../shared/usage.ts";
import type { Price, TokenRates } from "./prices-builtin.ts";

/** No price: reserved at zero rates, with no output maximum or context window (call-pricing.ts). */
const FREE: Price = { input: 0, cachedInput: 0, output: 0 };

/** The service tiers a request may pick (undefined: the standard rates). */
const TIERS = [undefined, "priority", "flex"] as const;

/** The highest input and output rate a reservation charges at some rates (reservation.ts). */
interface WorstRates {
  readonly input: number;
  readonly output: number;
}

function worst(rates: TokenRates, price: Price): WorstRates {
  return {
    input: Math.max(rates.input, rates.cachedInput, rates.cacheWrite5m ?? 0, rates.cacheWrite1h ?? 0, price.audio?.input ?? 0),
    output: Math.max(rates.output, price.audio?.output ?? 0),
  };
}

/** The rates of a service tier, and the lowest and highest a call in it may be reserved at (long context included). */
function tierRange(price: Price, tier: (typeof TIERS)[number]): { low: WorstRates; high: WorstRates } {
  const standard = worst((tier === undefined ? undefined : price.serviceTiers?.[tier]) ?? price, price);
  if (price.longContext === undefined) return { low: standard, high: standard };
  const long = worst(price.longContext, price);
  return {
    low: { input: Math.min(standard.input, long.input), output: Math.min(standard.output, long.output) },
    high: { input: Math.max(standard.input, long.input), output: Math.max(standard.output, long.output) },
  };
}

/**
 * Whether every call's reservation (amount and tokens) at `a` is at least the one at `b`, for
 * any request that `a` does not refuse: at every service tier a's lowest rates are at least b's
 * highest (long context included); a bounds referenced input at least as high (a context window
 * when b has one); a reserves at least as many output tokens when the request sets no limit;
 * and each per-use tool both price costs at least as much at a. A request a refuses (an output
 * limit above its maximum, a tool it has no price for) is priced target by target instead.
 */
export function boundsAtLeast(a: Price | null, b: Price | null): boolean {
  const x = a ?? FREE;
  const y = b ?? FREE;
  for (const tier of TIERS) {
    const low = tierRange(x, tier).low;
    const high = tierRange(y, tier).high;
    if (low.input < high.input || low.output < high.output) return false;
  }
  if (y.contextWindow !== undefined && (x.contextWindow === undefined || x.contextWindow < y.contextWindow)) return false;
  if ((x.maxOutputTokens ?? DEFAULT_OUTPUT_RESERVATION) < (y.maxOutputTokens ?? DEFAULT_OUTPUT_RESERVATION)) return false;
  for (const [kind, perUse] of Object.entries(y.tools ?? {})) {
    const own = x.tools?.[kind as keyof Price["tools"]];
    if (own !== undefined && own < perUse!) return false;
  }
  return true;
}

/**
 * Of `prices` (one per distinct priced target, in plan order), the indexes of those whose
 * reservation bounds every other's ({@link boundsAtLeast}); empty when none does (the
 * targets' prices cross: e.g. one dearer for input, another for output).
 */
export function dearestBounds(prices: readonly (Price | null)[]): number[] {
  const dearest: number[] = [];
  for (let i = 0; i < prices.length; i++) {
    if (prices.every((other, j) => i === j || boundsAtLeast(prices[i]!, other))) dearest.push(i);
  }
  return dearest;
}
