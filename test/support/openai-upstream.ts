import type { ReceivedRequest, ScriptedAnswer } from "./scripted-upstream.ts";

/** Usage the scripted OpenAI upstream reports (40 of its 120 prompt tokens cached). */
export const OPENAI_USAGE = { prompt_tokens: 120, completion_tokens: 9, total_tokens: 129, prompt_tokens_details: { cached_tokens: 40 } };
/** The tool call's arguments exactly as the scripted OpenAI upstream writes them (streamed in three fragments). */
export const OPENAI_TOOL_ARGS = '{"city":"Berlin","days":3}';
/** The text it answers with ("Hal" + "lo" when streamed). */
export const OPENAI_TEXT = "Hallo";

const firstToolName = (body: Record<string, unknown>): string | undefined => (body["tools"] as { function: { name: string } }[] | undefined)?.[0]?.function.name;

/**
 * Answers like OpenAI's chat/completions API (shapes from its API reference), on any path (Azure's
 * deployment routes too): a request with tools gets a call of its first tool, others "Hallo";
 * "please fail" in the body is a 400, "cut me" a stream cut in the middle of an event. Streams
 * end with a usage chunk and `[DONE]`.
 */
export function openAiAnswer({ body }: ReceivedRequest): ScriptedAnswer {
  if (JSON.stringify(body).includes("please fail")) return { status: 400, json: { error: { message: "Invalid value for 'temperature'", type: "invalid_request_error", param: "temperature", code: null } } };
  const tool = firstToolName(body);
  const base = { id: "chatcmpl-1", created: 1, model: body["model"] };
  if (body["stream"] !== true) {
    const message = tool !== undefined ? { role: "assistant", content: null, tool_calls: [{ id: "call_1", type: "function", function: { name: tool, arguments: OPENAI_TOOL_ARGS } }] } : { role: "assistant", content: OPENAI_TEXT };
    return { json: { ...base, object: "chat.completion", choices: [{ index: 0, message, finish_reason: tool !== undefined ? "tool_calls" : "stop", logprobs: null }], usage: OPENAI_USAGE } };
  }
  const chunk = (delta: unknown, finish: string | null = null) => `data: ${JSON.stringify({ ...base, object: "chat.completion.chunk", choices: [{ index: 0, delta, finish_reason: finish }] })}`;
  const events = [chunk({ role: "assistant", content: "" })];
  // The provider's stream cut in the middle of an event.
  if (JSON.stringify(body).includes("cut me")) return { sse: [...events, `data: {"id":"chatcmpl-1","object":"chat.completion.chunk","choices":[{"index":0,"delta":{"cont`] };
  if (tool !== undefined) {
    events.push(chunk({ tool_calls: [{ index: 0, id: "call_1", type: "function", function: { name: tool, arguments: "" } }] }));
    for (const part of [OPENAI_TOOL_ARGS.slice(0, 3), OPENAI_TOOL_ARGS.slice(3, 11), OPENAI_TOOL_ARGS.slice(11)]) events.push(chunk({ tool_calls: [{ index: 0, function: { arguments: part } }] }));
  } else for (const content of [OPENAI_TEXT.slice(0, 3), OPENAI_TEXT.slice(3)]) events.push(chunk({ content }));
  events.push(chunk({}, tool !== undefined ? "tool_calls" : "stop"));
  events.push(`data: ${JSON.stringify({ ...base, object: "chat.completion.chunk", choices: [], usage: OPENAI_USAGE })}`, "data: [DONE]");
  return { sse: events };
}
