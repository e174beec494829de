import type { Usage } from "../shared/usage.ts";
import type { Price } from "./prices-builtin.ts";

/** Costs are rounded up to 1 / COST_STEPS_PER_UNIT currency units (a billionth). */
export const COST_STEPS_PER_UNIT = 1_000_000_000;

/**
 * Cost of `usage` at `price` (per million tokens), in currency units.
 *
 * Computed as one sum of token × price products (exact for token counts and prices with a few
 * decimals, up to float rounding of about 1e-16 relative), scaled once, then rounded UP to a
 * billionth of a unit (1 / COST_STEPS_PER_UNIT) so a charge is never below the true cost. A result within 1e-12 relative of
 * a resolution step is taken as that step, so float noise (e.g. 0.30000000000000004) does not
 * add a spurious extra step.
 */
export function costOf(usage: Usage, price: Price): number {
  const perMillion =
    usage.inputTokens * price.input + usage.cachedInputTokens * price.cachedInput + usage.outputTokens * price.output;
  return roundUp(perMillion);
}

/** Rounds a cost expressed per million (currency × 1e6) up to a billionth of a unit. */
function roundUp(perMillion: number): number {
  const steps = perMillion * (COST_STEPS_PER_UNIT / 1_000_000);
  const nearest = Math.round(steps);
  const tolerance = 1e-12 * Math.max(1, Math.abs(steps));
  return (Math.abs(steps - nearest) <= tolerance ? nearest : Math.ceil(steps)) / COST_STEPS_PER_UNIT;
}
