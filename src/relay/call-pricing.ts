import type { Config } from "../config/config-schema.ts";
import { createBudgetPlan } from "../budget/budget-plan.ts";
import { costOf } from "../budget/cost.ts";
import { createPriceBook, type Price } from "../budget/price-book.ts";
import { reservationFor } from "../budget/reservation.ts";
import type { BudgetCharge } from "../budget/budget-charge.ts";
import { RelayError } from "../shared/relay-error.ts";
import type { Usage } from "../shared/usage.ts";
import type { CallerKey } from "./keyring.ts";
import type { RouteSpec } from "../shared/route-spec.ts";
import type { RequestReferences } from "./request-references.ts";

/** What a call may cost, decided before it is sent. */
export interface CallQuote {
  /** Null when the model has no price (only allowed when no strict budget needs one). */
  readonly price: Price | null;
  /** Upper bound reserved against every charge. */
  readonly reserved: number;
  readonly charges: readonly BudgetCharge[];
  /**
   * Set when a strict budget applies and the request set no output limit: the limit reserved
   * per output, which the relay adds to the upstream request so the provider enforces it.
   */
  readonly enforceOutputLimit?: number;
}

/** Prices calls and settles their real cost. */
export interface CallPricing {
  quote(input: { key: CallerKey; route: RouteSpec; model: string; upstreamModel: string; requestBytes: number; maxOutputTokens: number | undefined; choices?: number; references?: RequestReferences; now: Date }): CallQuote;
  /**
   * The real cost from the provider's final usage; without it (none seen, or a cut stream's
   * lower bound, which the caller passes as null) the reservation when the call may have been
   * billed, else zero.
   */
  settle(quote: CallQuote, usage: Usage | null, mayHaveBeenBilled: boolean): number;
}

const FREE: Price = { input: 0, cachedInput: 0, output: 0 };

/** Builds the price book and budget plan once, from config. */
export function createCallPricing(config: Config): CallPricing {
  const prices = createPriceBook(config.prices);
  const plan = createBudgetPlan(config.budgets, config.budget.mode);
  return {
    quote({ key, route, model, upstreamModel, requestBytes, maxOutputTokens, choices, references, now }) {
      const known = prices.priceOf(model) ?? prices.priceOf(upstreamModel) ?? null;
      if (!route.billable) return { price: known ?? FREE, reserved: 0, charges: [] };
      // Fresh charge objects per call: the amount is filled in once the reservation is known.
      const charges = plan.chargesFor(key.id, key.project, 0, now);
      const strict = charges.some((charge) => charge.mode === "strict");
      let price = known;
      if (price === null) {
        if (strict && config.budget.unpricedModels === "refuse") {
          throw new RelayError(403, "model_not_priced", `The model \`${model}\` has no price, so a strict budget cannot be enforced; add it to \`prices\` in the config`);
        }
        price = strict ? FREE : null;
      }
      if (strict && references !== undefined) refuseUnbounded(references, price ?? FREE, model);
      const { amount, outputTokens } = reservationFor({
        inputByReference: references?.inputByReference ?? false,
        requestBytes,
        maxOutputTokens: route.hasOutput ? maxOutputTokens : 0,
        choices: route.hasOutput ? (choices ?? 1) : 1,
        price: price ?? FREE,
        model,
      });
      for (const charge of charges) charge.amount = amount;
      const enforce = strict && route.hasOutput && maxOutputTokens === undefined;
      return enforce ? { price, reserved: amount, charges, enforceOutputLimit: outputTokens } : { price, reserved: amount, charges };
    },
    settle(quote, usage, mayHaveBeenBilled) {
      if (quote.price === null) return 0;
      if (usage !== null) return costOf(usage, quote.price);
      return mayHaveBeenBilled ? quote.reserved : 0;
    },
  };
}

/**
 * Under a strict budget, refuses what no reservation can bound: per-use server tools (Renio
 * does not price tool uses), and input by reference to a model without a known context window.
 */
function refuseUnbounded(references: RequestReferences, price: Price, model: string): void {
  const tool = references.serverTools[0];
  if (tool !== undefined) {
    throw new RelayError(403, "tool_not_bounded", `The tool \`${tool}\` is billed per use by the provider and Renio cannot bound its cost, so a strict budget refuses it`);
  }
  if (references.inputByReference && price.contextWindow === undefined) {
    throw new RelayError(403, "input_not_bounded", `The request sends input by reference (a URL, file id or earlier response) and \`${model}\` has no known context window to bound it, so a strict budget refuses it; set \`contextWindow\` in its \`prices\` entry`);
  }
}
