import { lookupTable } from "../../shared/own-keys.ts";
type Json = Record<string, unknown>;

/** OpenAI finish reasons as Anthropic stop reasons. */
const STOP_REASONS = lookupTable({ stop: "end_turn", length: "max_tokens", tool_calls: "tool_use", function_call: "tool_use", content_filter: "refusal" });

export function stopReason(finish: unknown): string {
  return typeof finish === "string" ? STOP_REASONS.get(finish) ?? "end_turn" : "end_turn";
}

const n = (value: unknown): number => (typeof value === "number" ? value : 0);

/**
 * OpenAI usage in Anthropic's shape: cached prompt tokens are cache reads; cache writes, where
 * the OpenAI-format usage carries them (`cache_creation_input_tokens` and its 5m/1h split, as
 * Bedrock's and the Anthropic translation's usage do), stay cache writes; the rest is input.
 */
export function anthropicUsageOf(usage: Json | undefined): Json {
  const cached = n((usage?.["prompt_tokens_details"] as Json | undefined)?.["cached_tokens"]);
  const written = n(usage?.["cache_creation_input_tokens"]);
  const out: Json = { input_tokens: n(usage?.["prompt_tokens"]) - cached - written, cache_read_input_tokens: cached, cache_creation_input_tokens: written, output_tokens: n(usage?.["completion_tokens"]) };
  const split = usage?.["cache_creation"];
  if (written > 0 && typeof split === "object" && split !== null) out["cache_creation"] = split;
  return out;
}

/** Parses a tool call's arguments; arguments that are not JSON are kept as a string under `_raw`. */
export function toolInput(args: unknown): unknown {
  if (typeof args !== "string" || args === "") return {};
  try {
    return JSON.parse(args);
  } catch {
    return { _raw: args };
  }
}

/** An OpenAI chat.completion as an Anthropic Messages answer (the first choice). */
export function openAiToAnthropicResponse(completion: Json): Json {
  const choice = ((completion["choices"] as Json[] | undefined) ?? [])[0] ?? {};
  const message = (choice["message"] as Json | undefined) ?? {};
  const content: Json[] = [];
  if (typeof message["content"] === "string" && message["content"] !== "") content.push({ type: "text", text: message["content"] });
  for (const call of (message["tool_calls"] as Json[] | undefined) ?? []) {
    const fn = call["function"] as Json;
    content.push({ type: "tool_use", id: call["id"], name: fn["name"], input: toolInput(fn["arguments"]) });
  }
  return {
    id: completion["id"],
    type: "message",
    role: "assistant",
    model: completion["model"],
    content,
    stop_reason: stopReason(choice["finish_reason"]),
    stop_sequence: null,
    usage: anthropicUsageOf(completion["usage"] as Json | undefined),
  };
}

/** OpenAI error types (or HTTP statuses) as Anthropic's. */
function anthropicErrorType(type: unknown, status: number): string {
  if (type === "invalid_request_error" || type === "authentication_error" || type === "permission_error" || type === "not_found_error" || type === "rate_limit_error") return type;
  if (status === 401) return "authentication_error";
  if (status === 403) return "permission_error";
  if (status === 404) return "not_found_error";
  if (status === 429) return "rate_limit_error";
  if (status < 500) return "invalid_request_error";
  return status === 529 || status === 503 ? "overloaded_error" : "api_error";
}

/** An OpenAI error body as Anthropic's envelope (the message kept). */
export function openAiToAnthropicError(body: unknown, status: number): Json {
  const error = (typeof body === "object" && body !== null ? (body as Json)["error"] : undefined) as Json | undefined;
  const message = typeof error?.["message"] === "string" ? error["message"] : "The upstream provider returned an error";
  return { type: "error", error: { type: anthropicErrorType(error?.["type"], status), message } };
}
