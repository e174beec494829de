import type { PriceConfig } from "../config/config-schema.ts";
import type { ServerToolKind } from "../shared/usage.ts";
import { BUILTIN_PRICES, type Price, type TokenRates } from "./prices-builtin.ts";

export type { Price } from "./prices-builtin.ts";

/** Looks up model prices. */
export interface PriceBook {
  /** The price of `model`, or undefined when neither config nor the built-in list knows it. */
  priceOf(model: string): Price | undefined;
}

/** Lookups remembered before the memo is cleared (model names can come from requests). */
const MEMO_LIMIT = 1024;

type RateConfig = Pick<PriceConfig, "input" | "cachedInput" | "output" | "cacheWrite5m" | "cacheWrite1h">;

function ratesFromConfig(config: RateConfig): TokenRates {
  const rates: TokenRates = { input: config.input, cachedInput: config.cachedInput ?? config.input, output: config.output };
  if (config.cacheWrite5m !== undefined) rates.cacheWrite5m = config.cacheWrite5m;
  if (config.cacheWrite1h !== undefined) rates.cacheWrite1h = config.cacheWrite1h;
  return rates;
}

function fromConfig(config: PriceConfig): Price {
  const price: Price = ratesFromConfig(config);
  if (config.maxOutputTokens !== undefined) price.maxOutputTokens = config.maxOutputTokens;
  if (config.contextWindow !== undefined) price.contextWindow = config.contextWindow;
  if (config.longContext !== undefined) price.longContext = { aboveInputTokens: config.longContext.aboveInputTokens, ...ratesFromConfig(config.longContext) };
  const tiers = config.serviceTiers;
  if (tiers !== undefined) {
    price.serviceTiers = {};
    if (tiers.priority !== undefined) price.serviceTiers.priority = ratesFromConfig(tiers.priority);
    if (tiers.flex !== undefined) price.serviceTiers.flex = ratesFromConfig(tiers.flex);
  }
  if (config.audio !== undefined) price.audio = config.audio.output === undefined ? { input: config.audio.input } : { input: config.audio.input, output: config.audio.output };
  if (config.tools !== undefined) {
    price.tools = {};
    for (const [kind, perUse] of Object.entries(config.tools)) if (perUse !== undefined) price.tools[kind as ServerToolKind] = perUse;
  }
  return deepFreeze(price);
}

/** Freezes a price and the tiers it holds. */
function deepFreeze(price: Price): Price {
  for (const value of Object.values(price)) if (typeof value === "object" && value !== null) deepFreeze(value as Price);
  return Object.freeze(price);
}

/**
 * Builds the price book: config `prices` over the built-in list. A model matches its exact
 * name, else the longest listed name that is a prefix ending at a `-` boundary
 * (`gpt-4o-2024-08-06` → `gpt-4o`, `mistral-large-latest` → `mistral-large`).
 * Lookups are memoized; the prices returned are frozen.
 */
export function createPriceBook(overrides: ReadonlyMap<string, PriceConfig>): PriceBook {
  const table = new Map<string, Price>();
  for (const [model, price] of Object.entries(BUILTIN_PRICES)) table.set(model, deepFreeze(structuredClone(price)));
  for (const [model, config] of overrides) table.set(model, fromConfig(config));
  const memo = new Map<string, Price | null>();

  function lookup(model: string): Price | null {
    let name = model;
    for (;;) {
      const price = table.get(name);
      if (price !== undefined) return price;
      const dash = name.lastIndexOf("-");
      if (dash <= 0) return null;
      name = name.slice(0, dash);
    }
  }

  return {
    priceOf(model) {
      let price = memo.get(model);
      if (price === undefined) {
        price = lookup(model);
        if (memo.size >= MEMO_LIMIT) memo.clear();
        memo.set(model, price);
      }
      return price ?? undefined;
    },
  };
}
