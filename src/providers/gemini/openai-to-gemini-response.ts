/** Gemini `GenerateContentResponse` → OpenAI chat.completion (JSON) and its parts (shared with the stream). */

type Json = Record<string, unknown>;

/** Gemini `finishReason` → OpenAI `finish_reason`. */
export function finishReasonOf(reason: unknown, hasToolCalls: boolean): string | null {
  if (reason === undefined || reason === null || reason === "FINISH_REASON_UNSPECIFIED") return null;
  if (hasToolCalls) return "tool_calls";
  if (reason === "STOP") return "stop";
  if (reason === "MAX_TOKENS") return "length";
  if (reason === "MALFORMED_FUNCTION_CALL" || reason === "UNEXPECTED_TOOL_CALL") return "stop";
  // SAFETY, RECITATION, BLOCKLIST, PROHIBITED_CONTENT, SPII, IMAGE_SAFETY, LANGUAGE, OTHER …
  return "content_filter";
}

/** Gemini `usageMetadata` → OpenAI `usage` (prompt tokens include cached ones in both; thoughts are output). */
export function usageOf(metadata: Json | undefined): Json {
  const prompt = num(metadata?.["promptTokenCount"]) + num(metadata?.["toolUsePromptTokenCount"]);
  const cached = num(metadata?.["cachedContentTokenCount"]);
  const thoughts = num(metadata?.["thoughtsTokenCount"]);
  const completion = num(metadata?.["candidatesTokenCount"]) + thoughts;
  return {
    prompt_tokens: prompt,
    completion_tokens: completion,
    total_tokens: prompt + completion,
    prompt_tokens_details: { cached_tokens: cached },
    completion_tokens_details: { reasoning_tokens: thoughts },
  };
}

function num(value: unknown): number {
  return typeof value === "number" && Number.isFinite(value) ? value : 0;
}

/** Text (thought parts left out) and function calls of one candidate's parts. */
export function partsOf(candidate: Json, idOf: (position: number) => string): { text: string; toolCalls: Json[] } {
  const parts = ((candidate["content"] as Json | undefined)?.["parts"] as Json[] | undefined) ?? [];
  let text = "";
  const toolCalls: Json[] = [];
  for (const part of parts) {
    if (typeof part["text"] === "string" && part["thought"] !== true) text += part["text"];
    const call = part["functionCall"] as Json | undefined;
    if (call !== undefined) {
      const id = typeof call["id"] === "string" ? call["id"] : idOf(toolCalls.length);
      toolCalls.push({ id, type: "function", function: { name: call["name"], arguments: JSON.stringify(call["args"] ?? {}) } });
    }
  }
  return { text, toolCalls };
}

/** The whole OpenAI chat.completion for a Gemini JSON answer. */
export function toChatCompletion(gemini: Json, model: string, id: string, created: number): Json {
  const candidates = (gemini["candidates"] as Json[] | undefined) ?? [];
  const choices = candidates.map((candidate, position) => {
    const index = typeof candidate["index"] === "number" ? candidate["index"] : position;
    const { text, toolCalls } = partsOf(candidate, (n) => `call_${id}_${index}_${n}`);
    const message: Json = { role: "assistant", content: text === "" && toolCalls.length > 0 ? null : text };
    if (toolCalls.length > 0) message["tool_calls"] = toolCalls;
    return { index, message, finish_reason: finishReasonOf(candidate["finishReason"], toolCalls.length > 0) ?? "stop", logprobs: null };
  });
  return { id, object: "chat.completion", created, model: gemini["modelVersion"] ?? model, choices, usage: usageOf(gemini["usageMetadata"] as Json | undefined) };
}
