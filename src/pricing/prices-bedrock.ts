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
  const anthropic = Object.entries(prices)
    .filter(([model]) => model.startsWith("claude-"))
    .map(([model, { tools: _tools, ...rest }]): [string, Price] => [`anthropic.${model}`, rest]);
  const bedrock = [...Object.entries(NOVA), ...anthropic];
  return Object.fromEntries([
    ...Object.entries(prices),
    ...bedrock.flatMap(([model, price]) => [[model, price] as const, ...PROFILES.map((profile) => [`${profile}.${model}`, price] as const)]),
  ]);
}
