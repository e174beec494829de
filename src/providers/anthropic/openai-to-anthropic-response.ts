import { lookupTable } from "../../shared/own-keys.ts";
type Json = Record<string, unknown>;

/** Anthropic stop reasons as OpenAI finish reasons. */
export const FINISH_REASONS = lookupTable({
  end_turn: "stop",
  stop_sequence: "stop",
  pause_turn: "stop",
  max_tokens: "length",
  model_context_window_exceeded: "length",
  tool_use: "tool_calls",
  refusal: "content_filter",
});

export function finishReason(stop: unknown): string | null {
  return typeof stop === "string" ? FINISH_REASONS.get(stop) ?? "stop" : null;
}

const n = (value: unknown): number => (typeof value === "number" ? value : 0);

/**
 * Anthropic usage in OpenAI's shape: `prompt_tokens` counts every input token (uncached, cache
 * reads and writes), `prompt_tokens_details.cached_tokens` the reads, and the writes are carried
 * as Anthropic names them (`cache_creation_input_tokens`, `cache_creation.ephemeral_5m/1h_input_tokens`).
 */
export function openAiUsageOf(usage: Json): Json {
  const read = n(usage["cache_read_input_tokens"]);
  const written = n(usage["cache_creation_input_tokens"]);
  const prompt = n(usage["input_tokens"]) + read + written;
  const completion = n(usage["output_tokens"]);
  const out: Json = { prompt_tokens: prompt, completion_tokens: completion, total_tokens: prompt + completion, prompt_tokens_details: { cached_tokens: read } };
  if (written > 0) {
    out["cache_creation_input_tokens"] = written;
    const split = usage["cache_creation"] as Json | undefined;
    out["cache_creation"] = {
      ephemeral_5m_input_tokens: split === undefined ? written : n(split["ephemeral_5m_input_tokens"]),
      ephemeral_1h_input_tokens: split === undefined ? 0 : n(split["ephemeral_1h_input_tokens"]),
    };
  }
  return out;
}

/** An Anthropic Messages answer as an OpenAI chat.completion. */
export function anthropicToOpenAiResponse(message: Json, created: number): Json {
  let text: string | null = null;
  const toolCalls: Json[] = [];
  for (const block of (message["content"] as Json[] | undefined) ?? []) {
    if (block["type"] === "text") text = (text ?? "") + String(block["text"]);
    else if (block["type"] === "tool_use") toolCalls.push({ id: block["id"], type: "function", function: { name: block["name"], arguments: JSON.stringify(block["input"] ?? {}) } });
  }
  const reply: Json = { role: "assistant", content: text, refusal: null };
  if (toolCalls.length > 0) reply["tool_calls"] = toolCalls;
  return {
    id: message["id"],
    object: "chat.completion",
    created,
    model: message["model"],
    choices: [{ index: 0, message: reply, finish_reason: finishReason(message["stop_reason"]), logprobs: null }],
    usage: openAiUsageOf((message["usage"] as Json | undefined) ?? {}),
  };
}

/** Anthropic error types as OpenAI's. */
const ERROR_TYPES = lookupTable({
  invalid_request_error: "invalid_request_error",
  authentication_error: "authentication_error",
  permission_error: "permission_error",
  not_found_error: "not_found_error",
  rate_limit_error: "rate_limit_error",
  overloaded_error: "server_error",
  api_error: "server_error",
});

/** An Anthropic error body as OpenAI's envelope (the message kept). */
export function anthropicToOpenAiError(body: unknown): Json {
  const error = (typeof body === "object" && body !== null ? (body as Json)["error"] : undefined) as Json | undefined;
  const type = typeof error?.["type"] === "string" ? (error["type"] as string) : "api_error";
  const message = typeof error?.["message"] === "string" ? error["message"] : "The upstream provider returned an error";
  return { error: { message, type: ERROR_TYPES.get(type) ?? "server_error", param: null, code: type } };
}
