import type { ReceivedRequest, ScriptedAnswer } from "./scripted-upstream.ts";

/** Usage the scripted Anthropic upstream reports (cache reads and both kinds of cache writes). */
export const ANTHROPIC_USAGE = { input_tokens: 21, output_tokens: 7, cache_read_input_tokens: 100, cache_creation_input_tokens: 50, cache_creation: { ephemeral_5m_input_tokens: 30, ephemeral_1h_input_tokens: 20 } };
/** The tool call's input exactly as the scripted Anthropic upstream writes it (streamed in three fragments split mid-token). */
export const ANTHROPIC_TOOL_ARGS = '{"city": "Paris", "unit": "c"}';
/** The text it answers with ("Bon" + "jour" when streamed). */
export const ANTHROPIC_TEXT = "Bonjour";

const firstToolName = (body: Record<string, unknown>): string | undefined => (body["tools"] as { name: string }[] | undefined)?.[0]?.name;

type AnthropicUsage = Record<string, unknown> & { output_tokens: number };

/**
 * Answers like Anthropic's Messages API (shapes from its API reference), reporting
 * `usageOf(request)`: a request with tools gets a `tool_use` of its first tool, others "Bonjour";
 * "please fail" in the body is a 429, "cut me" a stream cut in the middle of an event. Streams
 * carry a `ping` and an unknown event; `message_start` has the input usage, `message_delta` the output.
 */
export function anthropicAnswering(usageOf: (request: ReceivedRequest) => AnthropicUsage): (request: ReceivedRequest) => ScriptedAnswer {
  return (request) => answer(request, usageOf(request));
}

/** {@link anthropicAnswering} with `ANTHROPIC_USAGE`. */
export const anthropicAnswer = anthropicAnswering(() => ANTHROPIC_USAGE);

function answer({ body }: ReceivedRequest, usage: AnthropicUsage): ScriptedAnswer {
  const tool = firstToolName(body);
  if (JSON.stringify(body).includes("please fail")) return { status: 429, json: { type: "error", error: { type: "rate_limit_error", message: "Number of requests has exceeded your rate limit" } } };
  const content = tool !== undefined ? [{ type: "tool_use", id: "toolu_01", name: tool, input: JSON.parse(ANTHROPIC_TOOL_ARGS) }] : [{ type: "text", text: ANTHROPIC_TEXT }];
  const stop = tool !== undefined ? "tool_use" : "end_turn";
  if (body["stream"] !== true) return { json: { id: "msg_01", type: "message", role: "assistant", model: body["model"], content, stop_reason: stop, stop_sequence: null, usage } };
  const start = { type: "message_start", message: { id: "msg_01", type: "message", role: "assistant", model: body["model"], content: [], stop_reason: null, usage: { ...usage, output_tokens: 1 } } };
  const events = [`event: message_start\ndata: ${JSON.stringify(start)}`, `event: ping\ndata: {"type":"ping"}`];
  // The provider's stream cut in the middle of an event.
  if (JSON.stringify(body).includes("cut me")) return { sse: [...events, `event: content_block_delta\ndata: {"type":"content_block_delta","index":0,"delta":{"type":"text_`] };
  if (tool !== undefined) {
    events.push(`event: content_block_start\ndata: ${JSON.stringify({ type: "content_block_start", index: 0, content_block: { type: "tool_use", id: "toolu_01", name: tool, input: {} } })}`);
    // The arguments split mid-token across deltas.
    for (const part of [ANTHROPIC_TOOL_ARGS.slice(0, 5), ANTHROPIC_TOOL_ARGS.slice(5, 13), ANTHROPIC_TOOL_ARGS.slice(13)]) {
      events.push(`event: content_block_delta\ndata: ${JSON.stringify({ type: "content_block_delta", index: 0, delta: { type: "input_json_delta", partial_json: part } })}`);
    }
  } else {
    events.push(`event: content_block_start\ndata: ${JSON.stringify({ type: "content_block_start", index: 0, content_block: { type: "text", text: "" } })}`);
    for (const text of [ANTHROPIC_TEXT.slice(0, 3), ANTHROPIC_TEXT.slice(3)]) events.push(`event: content_block_delta\ndata: ${JSON.stringify({ type: "content_block_delta", index: 0, delta: { type: "text_delta", text } })}`);
  }
  events.push(`event: future_event\ndata: {"type":"future_event"}`);
  events.push(`event: content_block_stop\ndata: {"type":"content_block_stop","index":0}`);
  events.push(`event: message_delta\ndata: ${JSON.stringify({ type: "message_delta", delta: { stop_reason: stop, stop_sequence: null }, usage: { output_tokens: usage.output_tokens } })}`);
  events.push(`event: message_stop\ndata: {"type":"message_stop"}`);
  return { sse: events };
}
