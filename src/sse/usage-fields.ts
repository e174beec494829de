import type { Usage } from "../shared/usage.ts";

/** A token count from provider JSON: finite and non-negative, else undefined. */
function count(value: unknown): number | undefined {
  return typeof value === "number" && Number.isFinite(value) && value >= 0 ? value : undefined;
}

function record(value: unknown): Record<string, unknown> | undefined {
  return typeof value === "object" && value !== null && !Array.isArray(value)
    ? (value as Record<string, unknown>)
    : undefined;
}

/** Reads `obj[key]` when `obj` is a plain object. */
export function field(obj: unknown, key: string): unknown {
  return record(obj)?.[key];
}

/** Whether `value` is a non-null, non-array object. */
export function isObject(value: unknown): value is Record<string, unknown> {
  return record(value) !== undefined;
}

/**
 * Normalizes an OpenAI `usage` object: chat/completions/embeddings (`prompt_tokens`,
 * `prompt_tokens_details.cached_tokens`, `completion_tokens`) or Responses API
 * (`input_tokens`, `input_tokens_details.cached_tokens`, `output_tokens`).
 * Returns null when it carries no token counts.
 */
export function openAiUsage(usage: unknown): Usage | null {
  const u = record(usage);
  if (u === undefined) return null;
  const prompt = count(u["prompt_tokens"]);
  const input = prompt ?? count(u["input_tokens"]);
  const output = prompt !== undefined ? count(u["completion_tokens"]) : count(u["output_tokens"]);
  if (input === undefined && output === undefined) return null;
  const details = prompt !== undefined ? u["prompt_tokens_details"] : u["input_tokens_details"];
  const cached = Math.min(count(field(details, "cached_tokens")) ?? 0, input ?? 0);
  return { inputTokens: (input ?? 0) - cached, cachedInputTokens: cached, outputTokens: output ?? 0 };
}

/** Raw Anthropic counters, updated field by field as events arrive. */
export interface AnthropicCounters {
  input?: number;
  cacheRead?: number;
  cacheCreation?: number;
  output?: number;
}

/**
 * Merges the counts present in an Anthropic `usage` object into `into` (fields absent or null
 * keep their previous value). Returns whether any count was present.
 */
export function mergeAnthropicUsage(into: AnthropicCounters, usage: unknown): boolean {
  const u = record(usage);
  if (u === undefined) return false;
  let seen = false;
  const input = count(u["input_tokens"]);
  if (input !== undefined) (into.input = input), (seen = true);
  const read = count(u["cache_read_input_tokens"]);
  if (read !== undefined) (into.cacheRead = read), (seen = true);
  const creation = count(u["cache_creation_input_tokens"]);
  if (creation !== undefined) (into.cacheCreation = creation), (seen = true);
  const output = count(u["output_tokens"]);
  if (output !== undefined) (into.output = output), (seen = true);
  return seen;
}

/** Normalizes Anthropic counters: cache writes count as input, cache reads as cached input. */
export function anthropicUsage(c: AnthropicCounters): Usage {
  return {
    inputTokens: (c.input ?? 0) + (c.cacheCreation ?? 0),
    cachedInputTokens: c.cacheRead ?? 0,
    outputTokens: c.output ?? 0,
  };
}
