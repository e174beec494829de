import type { Usage } from "../shared/usage.ts";
import type { Price, TokenRates } from "./prices-builtin.ts";

/** Costs are rounded up to 1 / COST_STEPS_PER_UNIT currency units (a billionth). */
export const COST_STEPS_PER_UNIT = 1_000_000_000;

/**
 * The token rates that apply to a call with `inputTokens` of input (cached included): the
 * long-context tier when the input exceeds its threshold (the whole call is billed at it, as
 * the providers do), else the `priority` / `flex` service tier's rates when the model lists
 * them, else the standard rates.
 */
export function ratesFor(price: Price, inputTokens: number, serviceTier: string | undefined): TokenRates {
  const long = price.longContext;
  if (long !== undefined && inputTokens > long.aboveInputTokens) return long;
  const tier = serviceTier === "priority" || serviceTier === "flex" ? price.serviceTiers?.[serviceTier] : undefined;
  return tier ?? price;
}

/**
 * Cost of `usage` at `price` (per million tokens, per use for tools), in currency units.
 *
 * Rates are chosen by ratesFor (long context, service tier). Within the input, cache writes
 * are charged at their 5-minute / 1-hour rates (default: input) and audio at the model's audio
 * rate; audio output at the audio output rate; each server-tool use at its per-use price
 * (a tool without one costs nothing here: strict budgets refuse unpriced tools).
 *
 * Computed as one sum of token × price products (exact for token counts and prices with a few
 * decimals, up to float rounding of about 1e-16 relative), scaled once, then rounded UP to a
 * billionth of a unit (1 / COST_STEPS_PER_UNIT) so a charge is never below the true cost. A result within 1e-12 relative of
 * a resolution step is taken as that step, so float noise (e.g. 0.30000000000000004) does not
 * add a spurious extra step.
 */
export function costOf(usage: Usage, price: Price): number {
  const rates = ratesFor(price, usage.inputTokens + usage.cachedInputTokens, usage.serviceTier);
  const write5m = usage.cacheWrite5mTokens ?? 0;
  const write1h = usage.cacheWrite1hTokens ?? 0;
  const audio = price.audio;
  const audioIn = audio === undefined ? 0 : (usage.audioInputTokens ?? 0);
  const audioOut = audio?.output === undefined ? 0 : (usage.audioOutputTokens ?? 0);
  let perMillion =
    Math.max(0, usage.inputTokens - write5m - write1h - audioIn) * rates.input +
    usage.cachedInputTokens * rates.cachedInput +
    write5m * (rates.cacheWrite5m ?? rates.input) +
    write1h * (rates.cacheWrite1h ?? rates.input) +
    (usage.outputTokens - audioOut) * rates.output;
  if (audio !== undefined) perMillion += audioIn * audio.input + audioOut * (audio.output ?? 0);
  const uses = usage.toolUses;
  if (uses !== undefined && price.tools !== undefined) {
    for (const [kind, count] of Object.entries(uses)) perMillion += count * (price.tools[kind as keyof typeof uses] ?? 0) * 1_000_000;
  }
  return roundUp(perMillion);
}

/** Rounds a cost expressed per million (currency × 1e6) up to a billionth of a unit. */
function roundUp(perMillion: number): number {
  const steps = perMillion * (COST_STEPS_PER_UNIT / 1_000_000);
  const nearest = Math.round(steps);
  const tolerance = 1e-12 * Math.max(1, Math.abs(steps));
  return (Math.abs(steps - nearest) <= tolerance ? nearest : Math.ceil(steps)) / COST_STEPS_PER_UNIT;
}
