import type { MAX_TOKEN_FIELDS } from "./request-body.ts";

/** OpenAI chat models that reject `max_tokens` and take `max_completion_tokens` (reasoning models). */
const REASONING_MODEL = /^(o\d|gpt-5)([-.]|$)/;

/**
 * The output-limit field a provider expects for a route and upstream model: `max_output_tokens`
 * on the Responses API, `max_completion_tokens` for OpenAI chat reasoning models (o1, o3, o4,
 * gpt-5), `max_tokens` elsewhere (other chat models, completions, Anthropic messages).
 */
export function outputLimitField(path: string, upstreamModel: string): (typeof MAX_TOKEN_FIELDS)[number] {
  if (path === "/v1/responses") return "max_output_tokens";
  if (path === "/v1/chat/completions" && REASONING_MODEL.test(upstreamModel)) return "max_completion_tokens";
  return "max_tokens";
}
