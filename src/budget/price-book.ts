import type { PriceConfig } from "../config/config-schema.ts";
import { BUILTIN_PRICES, type Price } from "./prices-builtin.ts";

export type { Price } from "./prices-builtin.ts";

/** Looks up model prices. */
export interface PriceBook {
  /** The price of `model`, or undefined when neither config nor the built-in list knows it. */
  priceOf(model: string): Price | undefined;
}

/** Lookups remembered before the memo is cleared (model names can come from requests). */
const MEMO_LIMIT = 1024;

function fromConfig(config: PriceConfig): Price {
  const price: Price = { input: config.input, cachedInput: config.cachedInput ?? config.input, output: config.output };
  if (config.maxOutputTokens !== undefined) price.maxOutputTokens = config.maxOutputTokens;
  if (config.contextWindow !== undefined) price.contextWindow = config.contextWindow;
  if (config.cacheWrite5m !== undefined) price.cacheWrite5m = config.cacheWrite5m;
  if (config.cacheWrite1h !== undefined) price.cacheWrite1h = config.cacheWrite1h;
  return Object.freeze(price);
}

/**
 * Builds the price book: config `prices` over the built-in list. A model matches its exact
 * name, else the longest listed name that is a prefix ending at a `-` boundary
 * (`gpt-4o-2024-08-06` → `gpt-4o`, `mistral-large-latest` → `mistral-large`).
 * Lookups are memoized; the prices returned are frozen.
 */
export function createPriceBook(overrides: Readonly<Record<string, PriceConfig>>): PriceBook {
  const table = new Map<string, Price>();
  for (const [model, price] of Object.entries(BUILTIN_PRICES)) table.set(model, Object.freeze({ ...price }));
  for (const [model, config] of Object.entries(overrides)) table.set(model, fromConfig(config));
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
