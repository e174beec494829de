import type { ReceivedRequest, ScriptedAnswer } from "./scripted-upstream.ts";

/**
 * An upstream for the guardrail tests: answers on OpenAI chat/completions, OpenAI Responses and
 * Anthropic Messages (shapes from their API references) with the text (or tool call) a test
 * sets, streamed in pieces of `pieceSize` characters, so that a value in it is split across
 * SSE events wherever the test wants. Usage is reported as the providers do (final event).
 */
export interface GuardrailAnswer {
  /** The answer's text; `{{last}}` is replaced by the last user message's text as received (placeholders included). */
  text: string;
  /** Answer with a tool call with these arguments (JSON text) instead of text. */
  toolArguments?: string;
  /** Characters per streamed delta. */
  pieceSize: number;
}

export const USAGE = { input: 31, output: 17 };

/** The text of the last user message of a request as received (any of the three wire formats). */
export function lastUserText(body: Record<string, unknown>): string {
  const messages = (body["messages"] ?? body["input"]) as unknown;
  if (typeof messages === "string") return messages;
  const list = (messages as { role?: string; content?: unknown }[] | undefined) ?? [];
  const last = [...list].reverse().find((m) => m.role === "user");
  const content = last?.content;
  if (typeof content === "string") return content;
  return ((content as { type: string; text?: string }[] | undefined) ?? []).map((part) => part.text ?? "").join("");
}

function pieces(text: string, size: number): string[] {
  const out: string[] = [];
  for (let i = 0; i < text.length; i += size) out.push(text.slice(i, i + size));
  return out.length === 0 ? [""] : out;
}

/** The scripted answer of `request` given what the test set. */
export function guardrailAnswer(request: ReceivedRequest, set: GuardrailAnswer): ScriptedAnswer {
  const { path, body } = request;
  const text = set.text.replace("{{last}}", lastUserText(body));
  const stream = body["stream"] === true;
  if (path.endsWith("/messages")) return anthropic(body, text, set, stream);
  if (path.endsWith("/responses")) return responses(body, text, set, stream);
  return chat(body, text, set, stream);
}

function chat(body: Record<string, unknown>, text: string, set: GuardrailAnswer, stream: boolean): ScriptedAnswer {
  const base = { id: "chatcmpl-g", created: 1, model: body["model"] };
  const usage = { prompt_tokens: USAGE.input, completion_tokens: USAGE.output, total_tokens: USAGE.input + USAGE.output };
  const tool = set.toolArguments;
  if (!stream) {
    const message = tool === undefined ? { role: "assistant", content: text } : { role: "assistant", content: null, tool_calls: [{ id: "call_1", type: "function", function: { name: "lookup", arguments: tool } }] };
    return { json: { ...base, object: "chat.completion", choices: [{ index: 0, message, finish_reason: tool === undefined ? "stop" : "tool_calls", logprobs: null }], usage } };
  }
  const chunk = (delta: unknown, finish: string | null = null) => `data: ${JSON.stringify({ ...base, object: "chat.completion.chunk", choices: [{ index: 0, delta, finish_reason: finish }] })}`;
  const events = [chunk({ role: "assistant", content: "" })];
  if (tool === undefined) for (const content of pieces(text, set.pieceSize)) events.push(chunk({ content }));
  else {
    events.push(chunk({ tool_calls: [{ index: 0, id: "call_1", type: "function", function: { name: "lookup", arguments: "" } }] }));
    for (const part of pieces(tool, set.pieceSize)) events.push(chunk({ tool_calls: [{ index: 0, function: { arguments: part } }] }));
  }
  events.push(chunk({}, tool === undefined ? "stop" : "tool_calls"));
  events.push(`data: ${JSON.stringify({ ...base, object: "chat.completion.chunk", choices: [], usage })}`, "data: [DONE]");
  return { sse: events };
}

function responses(body: Record<string, unknown>, text: string, set: GuardrailAnswer, stream: boolean): ScriptedAnswer {
  const usage = { input_tokens: USAGE.input, input_tokens_details: { cached_tokens: 0 }, output_tokens: USAGE.output, output_tokens_details: { reasoning_tokens: 0 }, total_tokens: USAGE.input + USAGE.output };
  const part = { type: "output_text", text, annotations: [] };
  const item = { id: "msg_g", type: "message", status: "completed", role: "assistant", content: [part] };
  const response = (status: string, output: unknown[], used: unknown) => ({ id: "resp_g", object: "response", created_at: 1, status, model: body["model"], output, usage: used });
  if (!stream) return { json: response("completed", [item], usage) };
  let sequence = 0;
  const events: string[] = [];
  const push = (type: string, fields: Record<string, unknown>) => events.push(`event: ${type}\ndata: ${JSON.stringify({ type, sequence_number: sequence++, ...fields })}`);
  const at = { item_id: "msg_g", output_index: 0, content_index: 0 };
  push("response.created", { response: response("in_progress", [], null) });
  push("response.output_item.added", { output_index: 0, item: { ...item, status: "in_progress", content: [] } });
  push("response.content_part.added", { ...at, part: { ...part, text: "" } });
  for (const delta of pieces(text, set.pieceSize)) push("response.output_text.delta", { ...at, delta });
  push("response.output_text.done", { ...at, text });
  push("response.content_part.done", { ...at, part });
  push("response.output_item.done", { output_index: 0, item });
  push("response.completed", { response: response("completed", [item], usage) });
  return { sse: events };
}

function anthropic(body: Record<string, unknown>, text: string, set: GuardrailAnswer, stream: boolean): ScriptedAnswer {
  const usage = { input_tokens: USAGE.input, output_tokens: USAGE.output };
  const tool = set.toolArguments;
  const content = tool === undefined ? [{ type: "text", text }] : [{ type: "tool_use", id: "toolu_g", name: "lookup", input: JSON.parse(tool) as unknown }];
  if (!stream) return { json: { id: "msg_g", type: "message", role: "assistant", model: body["model"], content, stop_reason: "end_turn", stop_sequence: null, usage } };
  const event = (type: string, data: Record<string, unknown>) => `event: ${type}\ndata: ${JSON.stringify({ type, ...data })}`;
  const events = [
    event("message_start", { message: { id: "msg_g", type: "message", role: "assistant", model: body["model"], content: [], stop_reason: null, usage: { input_tokens: USAGE.input, output_tokens: 1 } } }),
    event("ping", {}),
  ];
  if (tool === undefined) {
    events.push(event("content_block_start", { index: 0, content_block: { type: "text", text: "" } }));
    for (const piece of pieces(text, set.pieceSize)) events.push(event("content_block_delta", { index: 0, delta: { type: "text_delta", text: piece } }));
  } else {
    events.push(event("content_block_start", { index: 0, content_block: { type: "tool_use", id: "toolu_g", name: "lookup", input: {} } }));
    for (const piece of pieces(tool, set.pieceSize)) events.push(event("content_block_delta", { index: 0, delta: { type: "input_json_delta", partial_json: piece } }));
  }
  events.push(event("content_block_stop", { index: 0 }));
  events.push(event("message_delta", { delta: { stop_reason: "end_turn", stop_sequence: null }, usage: { output_tokens: USAGE.output } }));
  events.push(event("message_stop", {}));
  return { sse: events };
}
