/** A model's price in currency units per million tokens. */
export interface Price {
  input: number;
  /** Price of input tokens read from the provider's prompt cache. */
  cachedInput: number;
  output: number;
  /** Largest output the model can produce (reserved when a request sets no limit). */
  maxOutputTokens?: number;
  /** Largest input the model accepts: the bound on input referenced rather than contained. */
  contextWindow?: number;
  /** Price of input tokens written to the prompt cache for 5 minutes (default `input`). */
  cacheWrite5m?: number;
  /** Price of input tokens written to the prompt cache for 1 hour (default `input`). */
  cacheWrite1h?: number;
}

function p(input: number, cachedInput: number, output: number, maxOutputTokens?: number): Price {
  return maxOutputTokens === undefined ? { input, cachedInput, output } : { input, cachedInput, output, maxOutputTokens };
}

/**
 * Built-in list prices (USD per million tokens, standard tier, as published by the providers
 * in 2025). Keys are base model names; dated or suffixed variants (`gpt-4o-2024-08-06`,
 * `claude-3-5-sonnet-20241022`, `mistral-large-latest`) match by longest prefix at a `-`
 * boundary (see price-book). Variants priced differently from their prefix are listed
 * explicitly (e.g. `o3-pro` under `o3`). Anthropic cache-write rates are listed (see
 * BUILTIN_PRICES) and reserved at; settlement still charges writes at the input price, and
 * long-context surcharges are not modelled. Config `prices`
 * override these. `mock` covers every `mock-*` model, priced like a mid-size model so the
 * default config has real budgets.
 */
/** When the built-in list prices were taken from the providers' price pages (not rechecked since). */
export const PRICES_AS_OF = "2025";

const LISTED_PRICES: Readonly<Record<string, Price>> = {
  // OpenAI
  "gpt-4o": p(2.5, 1.25, 10, 16_384),
  "gpt-4o-2024-05-13": p(5, 5, 15, 4_096),
  "chatgpt-4o-latest": p(5, 5, 15, 16_384),
  "gpt-4o-mini": p(0.15, 0.075, 0.6, 16_384),
  "gpt-4o-realtime-preview": p(5, 2.5, 20, 4_096),
  "gpt-4o-mini-realtime-preview": p(0.6, 0.3, 2.4, 4_096),
  "gpt-4.1": p(2, 0.5, 8, 32_768),
  "gpt-4.1-mini": p(0.4, 0.1, 1.6, 32_768),
  "gpt-4.1-nano": p(0.1, 0.025, 0.4, 32_768),
  "gpt-4-turbo": p(10, 10, 30, 4_096),
  "gpt-4": p(30, 30, 60, 8_192),
  "gpt-4-32k": p(60, 60, 120, 8_192),
  "gpt-3.5-turbo": p(0.5, 0.5, 1.5, 4_096),
  "gpt-5": p(1.25, 0.125, 10, 128_000),
  "gpt-5-mini": p(0.25, 0.025, 2, 128_000),
  "gpt-5-nano": p(0.05, 0.005, 0.4, 128_000),
  "gpt-5-pro": p(15, 15, 120, 272_000),
  "gpt-5.1": p(1.25, 0.125, 10, 128_000),
  o1: p(15, 7.5, 60, 100_000),
  "o1-mini": p(1.1, 0.55, 4.4, 65_536),
  "o1-pro": p(150, 150, 600, 100_000),
  o3: p(2, 0.5, 8, 100_000),
  "o3-mini": p(1.1, 0.55, 4.4, 100_000),
  "o3-pro": p(20, 20, 80, 100_000),
  "o3-deep-research": p(10, 2.5, 40, 100_000),
  "o4-mini": p(1.1, 0.275, 4.4, 100_000),
  "o4-mini-deep-research": p(2, 0.5, 8, 100_000),
  "text-embedding-3-small": p(0.02, 0.02, 0),
  "text-embedding-3-large": p(0.13, 0.13, 0),
  "text-embedding-ada-002": p(0.1, 0.1, 0),

  // Anthropic (cachedInput = cache read price)
  "claude-opus-4": p(15, 1.5, 75, 32_000),
  "claude-opus-4-1": p(15, 1.5, 75, 32_000),
  "claude-opus-4-5": p(5, 0.5, 25, 64_000),
  "claude-sonnet-4": p(3, 0.3, 15, 64_000),
  "claude-sonnet-4-5": p(3, 0.3, 15, 64_000),
  "claude-haiku-4-5": p(1, 0.1, 5, 64_000),
  "claude-3-7-sonnet": p(3, 0.3, 15, 64_000),
  "claude-3-5-sonnet": p(3, 0.3, 15, 8_192),
  "claude-3-5-haiku": p(0.8, 0.08, 4, 8_192),
  "claude-3-opus": p(15, 1.5, 75, 4_096),
  "claude-3-sonnet": p(3, 0.3, 15, 4_096),
  "claude-3-haiku": p(0.25, 0.03, 1.25, 4_096),

  // Mistral (no cache discount; output limits are not published separately from the context)
  "mistral-large": p(2, 2, 6),
  "mistral-medium": p(0.4, 0.4, 2),
  "mistral-small": p(0.1, 0.1, 0.3),
  codestral: p(0.3, 0.3, 0.9),
  "open-mistral-nemo": p(0.15, 0.15, 0.15),
  "pixtral-large": p(2, 2, 6),
  "magistral-medium": p(2, 2, 5),
  "magistral-small": p(0.5, 0.5, 1.5),
  "ministral-8b": p(0.1, 0.1, 0.1),
  "ministral-3b": p(0.04, 0.04, 0.04),
  "mistral-embed": p(0.1, 0.1, 0),

  // Renio's built-in mock provider: `mock-model`, `mock-gpt`, `mock-claude`, …
  mock: p(2, 0.5, 8, 16_384),
};

/** Context windows (tokens) of the listed models, by the same keys. */
const CONTEXT_WINDOWS: Readonly<Record<string, number>> = {
  "gpt-4o": 128_000, "gpt-4o-2024-05-13": 128_000, "chatgpt-4o-latest": 128_000, "gpt-4o-mini": 128_000,
  "gpt-4o-realtime-preview": 128_000, "gpt-4o-mini-realtime-preview": 128_000,
  "gpt-4.1": 1_047_576, "gpt-4.1-mini": 1_047_576, "gpt-4.1-nano": 1_047_576,
  "gpt-4-turbo": 128_000, "gpt-4": 8_192, "gpt-4-32k": 32_768, "gpt-3.5-turbo": 16_385,
  "gpt-5": 400_000, "gpt-5-mini": 400_000, "gpt-5-nano": 400_000, "gpt-5-pro": 400_000, "gpt-5.1": 400_000,
  o1: 200_000, "o1-mini": 128_000, "o1-pro": 200_000, o3: 200_000, "o3-mini": 200_000, "o3-pro": 200_000,
  "o3-deep-research": 200_000, "o4-mini": 200_000, "o4-mini-deep-research": 200_000,
  "claude-opus-4": 200_000, "claude-opus-4-1": 200_000, "claude-opus-4-5": 200_000, "claude-sonnet-4": 200_000,
  "claude-sonnet-4-5": 200_000, "claude-haiku-4-5": 200_000, "claude-3-7-sonnet": 200_000, "claude-3-5-sonnet": 200_000,
  "claude-3-5-haiku": 200_000, "claude-3-opus": 200_000, "claude-3-sonnet": 200_000, "claude-3-haiku": 200_000,
  "mistral-large": 128_000, "mistral-medium": 128_000, "mistral-small": 128_000, codestral: 256_000,
  "open-mistral-nemo": 128_000, "pixtral-large": 128_000, "magistral-medium": 40_000, "magistral-small": 40_000,
  "ministral-8b": 128_000, "ministral-3b": 128_000,
  mock: 128_000,
};

/**
 * Built-in list prices with their context windows (see LISTED_PRICES for the terms). Models
 * without a listed window (embeddings) cannot be sent input by reference under a strict budget.
 */
export const BUILTIN_PRICES: Readonly<Record<string, Price>> = Object.fromEntries(
  Object.entries(LISTED_PRICES).map(([model, price]) => {
    const window = CONTEXT_WINDOWS[model];
    const full: Price = window === undefined ? { ...price } : { ...price, contextWindow: window };
    // Anthropic bills cache writes at 1.25x input (5-minute) and 2x input (1-hour).
    if (model.startsWith("claude-")) Object.assign(full, { cacheWrite5m: price.input * 1.25, cacheWrite1h: price.input * 2 });
    return [model, full];
  }),
);
