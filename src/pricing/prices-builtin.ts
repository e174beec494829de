import type { ServerToolKind } from "../shared/usage.ts";
import { withBedrockIds } from "./prices-bedrock.ts";
import { lookupTable } from "../shared/own-keys.ts";

/** Per-million-token rates of one tier of a model. */
export interface TokenRates {
  input: number;
  /** Price of input tokens read from the provider's prompt cache. */
  cachedInput: number;
  output: number;
  /** Price of input tokens written to the prompt cache for 5 minutes (default `input`). */
  cacheWrite5m?: number;
  /** Price of input tokens written to the prompt cache for 1 hour (default `input`). */
  cacheWrite1h?: number;
}

/** A long-context tier: when a call's input (cached included) exceeds `aboveInputTokens`, the whole call is billed at these rates. */
export interface LongContextRates extends TokenRates {
  aboveInputTokens: number;
}

/** A model's price in currency units per million tokens (per use for `tools`). */
export interface Price extends TokenRates {
  /** Largest output the model can produce (reserved when a request sets no limit). */
  maxOutputTokens?: number;
  /** Largest input the model accepts: the bound on input referenced rather than contained. */
  contextWindow?: number;
  /** Rates above a long-context threshold (Anthropic 1M-context Sonnet, Gemini Pro, Grok 4). */
  longContext?: LongContextRates;
  /** OpenAI `service_tier` rates: `priority` and `flex` (default: the standard rates above). */
  serviceTiers?: { priority?: TokenRates; flex?: TokenRates };
  /** Audio token rates (OpenAI audio / realtime models, Gemini audio input); `output` absent when the model emits no audio. */
  audio?: { input: number; output?: number };
  /** Price of one use of each server-side tool the provider bills per use (absent: not priced, refused under a strict budget). */
  tools?: Partial<Record<ServerToolKind, number>>;
}

function p(input: number, cachedInput: number, output: number, maxOutputTokens?: number): Price {
  return maxOutputTokens === undefined ? { input, cachedInput, output } : { input, cachedInput, output, maxOutputTokens };
}

/**
 * Built-in list prices (USD per million tokens, standard tier, as published by the providers;
 * see PRICES_AS_OF). Keys are base model names; dated or suffixed variants (`gpt-4o-2024-08-06`,
 * `claude-3-5-sonnet-20241022`, `mistral-large-latest`) match by longest prefix at a `-`
 * boundary (see price-book). Variants priced differently from their prefix are listed
 * explicitly (e.g. `o3-pro` under `o3`). Rates that are not one flat price (Anthropic cache
 * writes, long-context tiers, OpenAI priority / flex tiers, audio tokens, per-use server tools)
 * are in PRICE_DETAILS. Config `prices` override these. `mock` covers every `mock-*` model,
 * priced like a mid-size model so the default config has real budgets.
 */
/** When the built-in list prices were taken from the providers' price pages (not rechecked since). */
export const PRICES_AS_OF = "2025-12";

const LISTED_PRICES: Readonly<Record<string, Price>> = {
  // OpenAI
  "gpt-4o": p(2.5, 1.25, 10, 16_384),
  "gpt-4o-2024-05-13": p(5, 5, 15, 4_096),
  "chatgpt-4o-latest": p(5, 5, 15, 16_384),
  "gpt-4o-mini": p(0.15, 0.075, 0.6, 16_384),
  "gpt-4o-realtime-preview": p(5, 2.5, 20, 4_096),
  "gpt-4o-mini-realtime-preview": p(0.6, 0.3, 2.4, 4_096),
  "gpt-4o-audio-preview": p(2.5, 2.5, 10, 16_384),
  "gpt-4o-mini-audio-preview": p(0.15, 0.15, 0.6, 16_384),
  "gpt-audio": p(2.5, 2.5, 10, 16_384),
  "gpt-realtime": p(4, 0.4, 16, 4_096),
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

  // Google Gemini (OpenAI-compatible endpoint; cachedInput = context cache read, storage not included)
  "gemini-3-pro-preview": p(2, 0.2, 12, 65_536),
  "gemini-2.5-pro": p(1.25, 0.125, 10, 65_536),
  "gemini-2.5-flash": p(0.3, 0.03, 2.5, 65_536),
  "gemini-2.5-flash-lite": p(0.1, 0.01, 0.4, 65_536),
  "gemini-2.0-flash": p(0.1, 0.025, 0.4, 8_192),
  "gemini-2.0-flash-lite": p(0.075, 0.075, 0.3, 8_192),

  // Groq
  "llama-3.3-70b-versatile": p(0.59, 0.59, 0.79, 32_768),
  "llama-3.1-8b-instant": p(0.05, 0.05, 0.08, 131_072),
  "openai/gpt-oss-120b": p(0.15, 0.075, 0.6, 65_536),
  "meta-llama/llama-4-scout-17b-16e-instruct": p(0.11, 0.11, 0.34, 8_192),
  "meta-llama/llama-4-maverick-17b-128e-instruct": p(0.2, 0.2, 0.6, 8_192),
  "qwen/qwen3-32b": p(0.29, 0.29, 0.59, 40_960),

  // DeepSeek (V3.2; cachedInput = cache hit)
  "deepseek-chat": p(0.28, 0.028, 0.42, 8_192),
  "deepseek-reasoner": p(0.28, 0.028, 0.42, 65_536),

  // xAI (no published output maximum: the default reservation applies)
  "grok-4": p(3, 0.75, 15),
  "grok-4-fast": p(0.2, 0.05, 0.5),
  "grok-4-1-fast": p(0.2, 0.05, 0.5),
  "grok-code-fast-1": p(0.2, 0.02, 1.5),
  "grok-3": p(3, 0.75, 15),
  "grok-3-mini": p(0.3, 0.075, 0.5),

  // Renio's built-in mock provider: `mock-model`, `mock-gpt`, `mock-claude`, …
  mock: p(2, 0.5, 8, 16_384),
};

/** Context windows (tokens) of the listed models, by the same keys. */
const CONTEXT_WINDOWS = lookupTable<number>({
  "gpt-4o": 128_000, "gpt-4o-2024-05-13": 128_000, "chatgpt-4o-latest": 128_000, "gpt-4o-mini": 128_000,
  "gpt-4o-realtime-preview": 128_000, "gpt-4o-mini-realtime-preview": 128_000, "gpt-4o-audio-preview": 128_000,
  "gpt-4o-mini-audio-preview": 128_000, "gpt-audio": 128_000, "gpt-realtime": 32_000,
  "gpt-4.1": 1_047_576, "gpt-4.1-mini": 1_047_576, "gpt-4.1-nano": 1_047_576,
  "gpt-4-turbo": 128_000, "gpt-4": 8_192, "gpt-4-32k": 32_768, "gpt-3.5-turbo": 16_385,
  "gpt-5": 400_000, "gpt-5-mini": 400_000, "gpt-5-nano": 400_000, "gpt-5-pro": 400_000, "gpt-5.1": 400_000,
  o1: 200_000, "o1-mini": 128_000, "o1-pro": 200_000, o3: 200_000, "o3-mini": 200_000, "o3-pro": 200_000,
  "o3-deep-research": 200_000, "o4-mini": 200_000, "o4-mini-deep-research": 200_000,
  "claude-opus-4": 200_000, "claude-opus-4-1": 200_000, "claude-opus-4-5": 200_000, "claude-sonnet-4": 1_000_000,
  "claude-sonnet-4-5": 1_000_000, "claude-haiku-4-5": 200_000, "claude-3-7-sonnet": 200_000, "claude-3-5-sonnet": 200_000,
  "claude-3-5-haiku": 200_000, "claude-3-opus": 200_000, "claude-3-sonnet": 200_000, "claude-3-haiku": 200_000,
  "mistral-large": 128_000, "mistral-medium": 128_000, "mistral-small": 128_000, codestral: 256_000,
  "open-mistral-nemo": 128_000, "pixtral-large": 128_000, "magistral-medium": 40_000, "magistral-small": 40_000,
  "ministral-8b": 128_000, "ministral-3b": 128_000,
  "gemini-3-pro-preview": 1_048_576, "gemini-2.5-pro": 1_048_576, "gemini-2.5-flash": 1_048_576, "gemini-2.5-flash-lite": 1_048_576,
  "gemini-2.0-flash": 1_048_576, "gemini-2.0-flash-lite": 1_048_576,
  "llama-3.3-70b-versatile": 131_072, "llama-3.1-8b-instant": 131_072, "openai/gpt-oss-120b": 131_072,
  "meta-llama/llama-4-scout-17b-16e-instruct": 131_072, "meta-llama/llama-4-maverick-17b-128e-instruct": 131_072, "qwen/qwen3-32b": 131_072,
  "deepseek-chat": 128_000, "deepseek-reasoner": 128_000,
  "grok-4": 256_000, "grok-4-fast": 2_000_000, "grok-4-1-fast": 2_000_000, "grok-code-fast-1": 256_000, "grok-3": 131_072, "grok-3-mini": 131_072,
  mock: 128_000,
});

const rates = (input: number, cachedInput: number, output: number): TokenRates => ({ input, cachedInput, output });
/** OpenAI flex: half the standard rates. */
const half = (input: number, cachedInput: number, output: number): TokenRates => rates(input / 2, cachedInput / 2, output / 2);
/** OpenAI Responses web search per call: $10 per 1,000 on reasoning models, $25 on others; file search $2.50; code interpreter $0.03 a container (at most one per call). */
const OPENAI_TOOLS = { web_search: 0.025, file_search: 0.0025, code_interpreter: 0.03 } as const;
const OPENAI_REASONING_TOOLS = { ...OPENAI_TOOLS, web_search: 0.01 } as const;
/** Anthropic: web search $10 per 1,000 searches; web fetch has no per-use charge (its content is billed as input). */
const ANTHROPIC_TOOLS = { web_search: 0.01, web_fetch: 0 } as const;
/** Anthropic's 1M-context Sonnet above 200k input tokens: 2x input, 1.5x output (cache rates scale with input). */
const SONNET_LONG: LongContextRates = { aboveInputTokens: 200_000, input: 6, cachedInput: 0.6, output: 22.5, cacheWrite5m: 7.5, cacheWrite1h: 12 };

/** Rates beyond one flat price, by the same keys (merged into BUILTIN_PRICES). */
const PRICE_DETAILS = lookupTable<Partial<Price>>({
  "gpt-4o": { serviceTiers: { priority: rates(4.25, 2.125, 17) }, tools: OPENAI_TOOLS },
  "gpt-4o-2024-05-13": { serviceTiers: { priority: rates(8.75, 8.75, 26.25) }, tools: OPENAI_TOOLS },
  "gpt-4o-mini": { serviceTiers: { priority: rates(0.25, 0.125, 1) }, tools: OPENAI_TOOLS },
  "gpt-4.1": { serviceTiers: { priority: rates(3.5, 0.875, 14) }, tools: OPENAI_TOOLS },
  "gpt-4.1-mini": { serviceTiers: { priority: rates(0.7, 0.175, 2.8) }, tools: OPENAI_TOOLS },
  "gpt-4.1-nano": { serviceTiers: { priority: rates(0.2, 0.05, 0.8) }, tools: OPENAI_TOOLS },
  "gpt-5": { serviceTiers: { priority: rates(2.5, 0.25, 20), flex: half(1.25, 0.125, 10) }, tools: OPENAI_REASONING_TOOLS },
  "gpt-5.1": { serviceTiers: { priority: rates(2.5, 0.25, 20), flex: half(1.25, 0.125, 10) }, tools: OPENAI_REASONING_TOOLS },
  "gpt-5-mini": { serviceTiers: { priority: rates(0.45, 0.045, 3.6), flex: half(0.25, 0.025, 2) }, tools: OPENAI_REASONING_TOOLS },
  "gpt-5-nano": { serviceTiers: { flex: half(0.05, 0.005, 0.4) }, tools: OPENAI_REASONING_TOOLS },
  o3: { serviceTiers: { priority: rates(3.5, 0.875, 14), flex: half(2, 0.5, 8) }, tools: OPENAI_REASONING_TOOLS },
  "o4-mini": { serviceTiers: { priority: rates(2, 0.5, 8), flex: half(1.1, 0.275, 4.4) }, tools: OPENAI_REASONING_TOOLS },
  "o3-deep-research": { tools: OPENAI_REASONING_TOOLS },
  "o4-mini-deep-research": { tools: OPENAI_REASONING_TOOLS },
  "gpt-4o-realtime-preview": { audio: { input: 40, output: 80 } },
  "gpt-4o-mini-realtime-preview": { audio: { input: 10, output: 20 } },
  "gpt-4o-audio-preview": { audio: { input: 40, output: 80 } },
  "gpt-4o-mini-audio-preview": { audio: { input: 10, output: 20 } },
  "gpt-audio": { audio: { input: 32, output: 64 } },
  "gpt-realtime": { audio: { input: 32, output: 64 } },
  "claude-sonnet-4": { longContext: SONNET_LONG },
  "claude-sonnet-4-5": { longContext: SONNET_LONG },
  "gemini-3-pro-preview": { longContext: { aboveInputTokens: 200_000, input: 4, cachedInput: 0.4, output: 18 } },
  "gemini-2.5-pro": { longContext: { aboveInputTokens: 200_000, input: 2.5, cachedInput: 0.25, output: 15 } },
  "gemini-2.5-flash": { audio: { input: 1 } },
  "gemini-2.5-flash-lite": { audio: { input: 0.3 } },
  "gemini-2.0-flash": { audio: { input: 0.7 } },
  "grok-4": { longContext: { aboveInputTokens: 128_000, input: 6, cachedInput: 1.5, output: 30 } },
  "grok-4-fast": { longContext: { aboveInputTokens: 128_000, input: 0.4, cachedInput: 0.1, output: 1 } },
  "grok-4-1-fast": { longContext: { aboveInputTokens: 128_000, input: 0.4, cachedInput: 0.1, output: 1 } },
});

/**
 * Built-in list prices with their context windows and PRICE_DETAILS (see LISTED_PRICES for the
 * terms). Models without a listed window (embeddings) cannot be sent input by reference under a
 * strict budget. Bedrock model ids are added by withBedrockIds (prices-bedrock.ts).
 */
export const BUILTIN_PRICES: Readonly<Record<string, Price>> = withBedrockIds(Object.fromEntries(
  Object.entries(LISTED_PRICES).map(([model, price]) => {
    const window = CONTEXT_WINDOWS.get(model);
    const full: Price = window === undefined ? { ...price } : { ...price, contextWindow: window };
    // Anthropic bills cache writes at 1.25x input (5-minute) and 2x input (1-hour), and server tools per use.
    if (model.startsWith("claude-")) Object.assign(full, { cacheWrite5m: price.input * 1.25, cacheWrite1h: price.input * 2, tools: ANTHROPIC_TOOLS });
    Object.assign(full, PRICE_DETAILS.get(model));
    return [model, full];
  }),
));
