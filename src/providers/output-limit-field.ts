/** The fields that limit a call's output, across wire formats. */
export const OUTPUT_LIMIT_FIELDS = ["max_tokens", "max_completion_tokens", "max_output_tokens"] as const;

/** One of OUTPUT_LIMIT_FIELDS. */
export type OutputLimitField = (typeof OUTPUT_LIMIT_FIELDS)[number];

/** OpenAI reasoning models (o1, o3, o4, gpt-5 and their variants): no `max_tokens` on chat/completions. */
const REASONING_MODEL = /^(o\d|gpt-5)([-.]|$)/;

/** Whether `model` is an OpenAI reasoning model, named bare or after a `vendor/` prefix (`openai/gpt-5`). */
export function isReasoningModel(model: string): boolean {
  return REASONING_MODEL.test(model.slice(model.lastIndexOf("/") + 1));
}

/**
 * The output-limit field the provider expects on `path` (the provider's route, after any
 * translation) for `upstreamModel`: `max_output_tokens` on the Responses API,
 * `max_completion_tokens` on chat/completions for reasoning models, `max_tokens` elsewhere
 * (other chat models, completions, Anthropic messages). The one place this is decided: the
 * relay's pass-through rewrite and every request translation ask here.
 */
export function outputLimitField(path: string, upstreamModel: string): OutputLimitField {
  if (path === "/v1/responses") return "max_output_tokens";
  if (path === "/v1/chat/completions" && isReasoningModel(upstreamModel)) return "max_completion_tokens";
  return "max_tokens";
}
