import type { Usage, WireFormat } from "../shared/usage.ts";
import { anthropicUsage, type AnthropicCounters, field, mergeAnthropicModel, mergeAnthropicUsage, openAiUsage } from "./usage-fields.ts";

const decoder = new TextDecoder();

/**
 * Usage of a non-streaming response body: the top-level `usage` object of an OpenAI
 * chat/completions/embeddings or Responses body, or of an Anthropic message.
 * Returns null for anything else, including bodies that are not JSON; never throws.
 */
export function usageFromJson(body: Uint8Array, format: WireFormat): Usage | null {
  let parsed: unknown;
  try {
    parsed = JSON.parse(decoder.decode(body));
  } catch {
    return null;
  }
  const usage = field(parsed, "usage");
  if (format === "openai") return openAiUsage(usage, parsed);
  const counters: AnthropicCounters = {};
  mergeAnthropicModel(counters, parsed);
  return mergeAnthropicUsage(counters, usage) ? anthropicUsage(counters) : null;
}
