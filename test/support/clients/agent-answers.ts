import type { Usage } from "../../../src/shared/usage.ts";
import { responseObject, responsesEvents, type ResponsesOutput } from "../responses-upstream.ts";

/**
 * What the scripted provider answers an agent, on each wire, with the shapes and usage of the
 * real APIs' references: the first turn of a task calls a tool the client offers, the turn that
 * carries its result answers text quoting that result ("tool calls, then text"). JSON or SSE as
 * the request asks; usage where each API puts it (chat: the body or, when asked for with
 * `stream_options.include_usage`, a last chunk; Responses: the response and
 * `response.completed`; Anthropic: `message_start` for input, `message_delta` for output).
 */

type Json = Record<string, unknown>;

/** The tools the script calls when a client offers them (first offered wins), with their arguments. */
export type ToolScript = ReadonlyArray<{ readonly name: string; readonly arguments: Json }>;

/** A turn decided: call a tool, or answer text. */
export type Turn = { readonly call: { readonly name: string; readonly arguments: string } } | { readonly text: string };

/** An answer and the usage it reports, normalized as Renio reads it (docs: README "Budgets"). */
export interface ScriptedTurn {
  readonly status: number;
  readonly json?: unknown;
  /** SSE events, each with its blank line. */
  readonly sse?: string[];
  readonly usage: Usage | null;
}

const REASONING = /^(o\d|gpt-5)([-.]|$)/;

/** The text answered once a tool's result came back: quotes the result (a client's `<system-reminder>` notes left out), whitespace folded. */
export function finalText(result: string): string {
  return `Done: ${result.replace(/<system-reminder>[\s\S]*?<\/system-reminder>/g, "").replace(/\s+/g, " ").trim().slice(0, 120)}`;
}

/** Text of a tool result in any of the wires' shapes (a string, or text blocks / parts). */
function resultText(content: unknown): string {
  if (typeof content === "string") return content;
  if (Array.isArray(content)) return content.map((part: Json) => (typeof part["text"] === "string" ? part["text"] : "")).join("");
  return "";
}

/** The last tool result the request carries, on its wire; undefined before any. */
function toolResult(path: string, body: Json): string | undefined {
  if (path.endsWith("/responses")) {
    const items = Array.isArray(body["input"]) ? (body["input"] as Json[]) : [];
    const output = items.filter((item) => item["type"] === "function_call_output").at(-1);
    return output === undefined ? undefined : resultText(output["output"]);
  }
  const messages = Array.isArray(body["messages"]) ? (body["messages"] as Json[]) : [];
  if (path.endsWith("/chat/completions")) {
    const tool = messages.filter((message) => message["role"] === "tool").at(-1);
    return tool === undefined ? undefined : resultText(tool["content"]);
  }
  const blocks = messages.flatMap((message) => (message["role"] === "user" && Array.isArray(message["content"]) ? (message["content"] as Json[]) : []));
  const result = blocks.filter((block) => block["type"] === "tool_result").at(-1);
  return result === undefined ? undefined : resultText(result["content"]);
}

/** The names of the function tools a request offers, on its wire. */
function offeredTools(path: string, body: Json): string[] {
  const tools = Array.isArray(body["tools"]) ? (body["tools"] as Json[]) : [];
  return tools.map((tool) => (path.endsWith("/chat/completions") ? (tool["function"] as Json | undefined)?.["name"] : tool["name"])).filter((name): name is string => typeof name === "string");
}

/** The turn for a request: text quoting a tool result it carries, else a call of the first scripted tool it offers, else "Done.". */
export function decideTurn(path: string, body: Json, script: ToolScript): Turn {
  const result = toolResult(path, body);
  if (result !== undefined) return { text: finalText(result) };
  const offered = offeredTools(path, body);
  const tool = script.find((entry) => offered.includes(entry.name));
  return tool === undefined ? { text: "Done." } : { call: { name: tool.name, arguments: JSON.stringify(tool.arguments) } };
}

/** Token counts of one answer: input from the body's size (a quarter of it cached), output by turn, reasoning for reasoning models. */
function counts(bytes: number, model: string, turn: Turn): { total: number; cached: number; output: number; reasoning: number } {
  const total = Math.max(8, Math.floor(bytes / 4));
  const reasoning = REASONING.test(model) ? 5 : 0;
  return { total, cached: Math.floor(total / 4), output: ("call" in turn ? 12 : 6) + reasoning, reasoning };
}

const sse = (event: string | null, data: unknown): string => `${event === null ? "" : `event: ${event}\n`}data: ${typeof data === "string" ? data : JSON.stringify(data)}\n\n`;
const halves = (text: string): string[] => [text.slice(0, Math.ceil(text.length / 2)), text.slice(Math.ceil(text.length / 2))];

/** OpenAI chat/completions. */
export function chatTurn(body: Json, bytes: number, turn: Turn, id: string): ScriptedTurn {
  const model = String(body["model"]);
  const { total, cached, output, reasoning } = counts(bytes, model, turn);
  const usage = { prompt_tokens: total, completion_tokens: output, total_tokens: total + output, prompt_tokens_details: { cached_tokens: cached, audio_tokens: 0 }, completion_tokens_details: { reasoning_tokens: reasoning, audio_tokens: 0 } };
  const normalized: Usage = { inputTokens: total - cached, cachedInputTokens: cached, outputTokens: output };
  const base = { id, created: 1_700_000_000, model, system_fingerprint: null };
  const finish = "call" in turn ? "tool_calls" : "stop";
  if (body["stream"] !== true) {
    const message = "call" in turn ? { role: "assistant", content: null, tool_calls: [{ id: "call_1", type: "function", function: turn.call }], refusal: null } : { role: "assistant", content: turn.text, refusal: null };
    return { status: 200, json: { ...base, object: "chat.completion", choices: [{ index: 0, message, logprobs: null, finish_reason: finish }], usage }, usage: normalized };
  }
  const includeUsage = (body["stream_options"] as Json | undefined)?.["include_usage"] === true;
  const chunk = (delta: Json, finishReason: string | null = null) => sse(null, { ...base, object: "chat.completion.chunk", choices: [{ index: 0, delta, logprobs: null, finish_reason: finishReason }], ...(includeUsage ? { usage: null } : {}) });
  const events = [chunk({ role: "assistant", content: "" })];
  if ("call" in turn) {
    events.push(chunk({ tool_calls: [{ index: 0, id: "call_1", type: "function", function: { name: turn.call.name, arguments: "" } }] }));
    for (const part of halves(turn.call.arguments)) events.push(chunk({ tool_calls: [{ index: 0, function: { arguments: part } }] }));
  } else for (const part of halves(turn.text)) events.push(chunk({ content: part }));
  events.push(chunk({}, finish));
  if (includeUsage) events.push(sse(null, { ...base, object: "chat.completion.chunk", choices: [], usage }));
  events.push(sse(null, "[DONE]"));
  // Without include_usage the provider reports no usage to anyone.
  return { status: 200, sse: events, usage: includeUsage ? normalized : null };
}

/** OpenAI Responses. */
export function responsesTurn(body: Json, bytes: number, turn: Turn): ScriptedTurn {
  const model = String(body["model"]);
  const { total, cached, output, reasoning } = counts(bytes, model, turn);
  const usage = { input_tokens: total, input_tokens_details: { cached_tokens: cached }, output_tokens: output, output_tokens_details: { reasoning_tokens: reasoning }, total_tokens: total + output };
  const normalized: Usage = { inputTokens: total - cached, cachedInputTokens: cached, outputTokens: output };
  const out: ResponsesOutput = "call" in turn ? { call: turn.call } : { text: turn.text };
  if (body["stream"] !== true) return { status: 200, json: responseObject(model, out, usage), usage: normalized };
  return { status: 200, sse: responsesEvents(model, out, usage).map((event) => `${event}\n\n`), usage: normalized };
}

/** Anthropic Messages. */
export function messagesTurn(body: Json, bytes: number, turn: Turn, id: string): ScriptedTurn {
  const model = String(body["model"]);
  const { total, cached, output } = counts(bytes, model, turn);
  const writes = Math.floor(total / 8);
  const oneHour = Math.floor(writes / 2);
  const input = { input_tokens: total - cached - writes, cache_read_input_tokens: cached, cache_creation_input_tokens: writes, cache_creation: { ephemeral_5m_input_tokens: writes - oneHour, ephemeral_1h_input_tokens: oneHour } };
  const normalized: Usage = { inputTokens: total - cached, cachedInputTokens: cached, outputTokens: output, cacheWrite5mTokens: writes - oneHour, cacheWrite1hTokens: oneHour };
  const content = "call" in turn ? [{ type: "tool_use", id: "toolu_01", name: turn.call.name, input: JSON.parse(turn.call.arguments) }] : [{ type: "text", text: turn.text }];
  const stop = "call" in turn ? "tool_use" : "end_turn";
  const message = { id, type: "message", role: "assistant", model };
  if (body["stream"] !== true) return { status: 200, json: { ...message, content, stop_reason: stop, stop_sequence: null, usage: { ...input, output_tokens: output, service_tier: "standard" } }, usage: normalized };
  const events = [sse("message_start", { type: "message_start", message: { ...message, content: [], stop_reason: null, stop_sequence: null, usage: { ...input, output_tokens: 1, service_tier: "standard" } } }), sse("ping", { type: "ping" })];
  if ("call" in turn) {
    events.push(sse("content_block_start", { type: "content_block_start", index: 0, content_block: { type: "tool_use", id: "toolu_01", name: turn.call.name, input: {} } }));
    for (const part of halves(turn.call.arguments)) events.push(sse("content_block_delta", { type: "content_block_delta", index: 0, delta: { type: "input_json_delta", partial_json: part } }));
  } else {
    events.push(sse("content_block_start", { type: "content_block_start", index: 0, content_block: { type: "text", text: "" } }));
    for (const part of halves(turn.text)) events.push(sse("content_block_delta", { type: "content_block_delta", index: 0, delta: { type: "text_delta", text: part } }));
  }
  events.push(sse("content_block_stop", { type: "content_block_stop", index: 0 }));
  events.push(sse("message_delta", { type: "message_delta", delta: { stop_reason: stop, stop_sequence: null }, usage: { output_tokens: output } }));
  events.push(sse("message_stop", { type: "message_stop" }));
  return { status: 200, sse: events, usage: normalized };
}

/** A refusal in the wire's envelope, as the real API words it. */
export function refusal(path: string, status: number, message: string, param: string | null = null, code: string | null = null): ScriptedTurn {
  if (path.endsWith("/messages")) {
    const type = status === 401 ? "authentication_error" : status === 529 ? "overloaded_error" : status >= 500 ? "api_error" : "invalid_request_error";
    return { status, json: { type: "error", error: { type, message } }, usage: null };
  }
  const type = status === 401 ? "invalid_request_error" : status >= 500 ? "server_error" : "invalid_request_error";
  return { status, json: { error: { message, type, param, code } }, usage: null };
}

/** The refusals the real APIs give requests this script would otherwise answer (e.g. `max_tokens` to a reasoning model). */
export function checkRequest(path: string, body: Json): ScriptedTurn | undefined {
  const model = String(body["model"] ?? "");
  if (path.endsWith("/chat/completions") && REASONING.test(model) && body["max_tokens"] !== undefined) {
    return refusal(path, 400, "Unsupported parameter: 'max_tokens' is not supported with this model. Use 'max_completion_tokens' instead.", "max_tokens", "unsupported_parameter");
  }
  if (path.endsWith("/messages") && typeof body["max_tokens"] !== "number") return refusal(path, 400, "max_tokens: Field required");
  return undefined;
}
