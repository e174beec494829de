import type { Price } from "./prices-builtin.ts";

/** Amazon Nova on Bedrock (on-demand, us-east-1 list prices; cachedInput = cache read at a 75% discount). */
const NOVA: Readonly<Record<string, Price>> = {
  "amazon.nova-premier": { input: 2.5, cachedInput: 0.625, output: 12.5, maxOutputTokens: 32_000, contextWindow: 1_000_000 },
  "amazon.nova-pro": { input: 0.8, cachedInput: 0.2, output: 3.2, maxOutputTokens: 10_000, contextWindow: 300_000 },
  "amazon.nova-lite": { input: 0.06, cachedInput: 0.015, output: 0.24, maxOutputTokens: 10_000, contextWindow: 300_000 },
  "amazon.nova-micro": { input: 0.035, cachedInput: 0.00875, output: 0.14, maxOutputTokens: 10_000, contextWindow: 128_000 },
};

/** Bedrock's cross-region inference profile prefixes (`eu.anthropic.claude-…`). */
const PROFILES = ["eu", "us", "apac", "global"];

/**
 * Bedrock model ids for the built-in prices: every `claude-*` entry as `anthropic.claude-*` and
 * under each inference profile prefix, at Anthropic's rates without its per-use server tools
 * (Converse has none), and Amazon Nova. Dated ids (`…-20240620-v1:0`) match by prefix.
 */
export function withBedrockIds(prices: Readonly<Record<string, Price>>): Readonly<Record<string, Price>> {
  const out: Record<string, Price> = { ...prices };
  const bedrock: Record<string, Price> = { ...NOVA };
  for (const [model, price] of Object.entries(prices)) {
    if (!model.startsWith("claude-")) continue;
    const { tools: _tools, ...rest } = price;
    bedrock[`anthropic.${model}`] = rest;
  }
  for (const [model, price] of Object.entries(bedrock)) {
    out[model] = price;
    for (const profile of PROFILES) out[`${profile}.${model}`] = price;
  }
  return out;
}
