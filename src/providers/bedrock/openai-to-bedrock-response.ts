import { field } from "../../usage/usage-fields.ts";

/** Bedrock stop reasons as OpenAI finish reasons. */
export function finishReason(stopReason: unknown): string {
  switch (stopReason) {
    case "tool_use": return "tool_calls";
    case "max_tokens": return "length";
    case "guardrail_intervened":
    case "content_filtered": return "content_filter";
    default: return "stop";
  }
}

/**
 * Bedrock `usage` as an OpenAI usage object. Bedrock's `inputTokens` excludes cache reads and
 * writes; OpenAI's `prompt_tokens` includes them, with reads in `prompt_tokens_details.cached_tokens`
 * and writes in `cache_creation_input_tokens` (read by the OpenAI usage parser).
 */
export function openAiUsageOf(usage: unknown): Record<string, unknown> {
  const n = (key: string): number => {
    const value = field(usage, key);
    return typeof value === "number" && Number.isFinite(value) && value >= 0 ? value : 0;
  };
  const read = n("cacheReadInputTokens");
  const write = n("cacheWriteInputTokens");
  const prompt = n("inputTokens") + read + write;
  const completion = n("outputTokens");
  const out: Record<string, unknown> = {
    prompt_tokens: prompt,
    completion_tokens: completion,
    total_tokens: prompt + completion,
    prompt_tokens_details: { cached_tokens: read },
  };
  if (write > 0) out["cache_creation_input_tokens"] = write;
  return out;
}

/** A Converse JSON response as an OpenAI chat.completion. */
export function toChatCompletion(converse: unknown, model: string, id: string): Record<string, unknown> {
  const content = field(field(field(converse, "output"), "message"), "content");
  if (!Array.isArray(content)) throw new Error("Bedrock answer has no output.message.content");
  let text: string | null = null;
  const toolCalls: unknown[] = [];
  for (const block of content) {
    const t = field(block, "text");
    if (typeof t === "string") text = (text ?? "") + t;
    const use = field(block, "toolUse");
    if (use !== undefined) {
      toolCalls.push({ id: field(use, "toolUseId"), type: "function", function: { name: field(use, "name"), arguments: JSON.stringify(field(use, "input") ?? {}) } });
    }
  }
  const message: Record<string, unknown> = { role: "assistant", content: text };
  if (toolCalls.length > 0) message["tool_calls"] = toolCalls;
  return {
    id,
    object: "chat.completion",
    created: Math.floor(Date.now() / 1000),
    model,
    choices: [{ index: 0, message, logprobs: null, finish_reason: finishReason(field(converse, "stopReason")) }],
    usage: openAiUsageOf(field(converse, "usage")),
  };
}
