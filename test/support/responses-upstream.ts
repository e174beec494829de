import type { ReceivedRequest, ScriptedAnswer } from "./scripted-upstream.ts";

/** Usage the scripted Responses upstream reports (30 of 150 input tokens cached, 12 of 20 output tokens reasoning). */
export const RESPONSES_USAGE = { input_tokens: 150, input_tokens_details: { cached_tokens: 30 }, output_tokens: 20, output_tokens_details: { reasoning_tokens: 12 }, total_tokens: 170 };
/** The text it answers with ("Hal" + "lo" when streamed). */
export const RESPONSES_TEXT = "Hallo";

type Json = Record<string, unknown>;

/** One Responses API output item: a message with text, or a call of a function tool. */
export type ResponsesOutput = { text: string } | { call: { name: string; arguments: string } };

/** A whole response object (shapes from the API reference) with `output` and `usage`. */
export function responseObject(model: unknown, output: ResponsesOutput, usage: Json, status = "completed"): Json {
  return { id: "resp_01", object: "response", created_at: 1, status, model, output: [outputItem(output, "completed")], usage };
}

function outputItem(output: ResponsesOutput, status: string): Json {
  if ("call" in output) return { type: "function_call", id: "fc_01", call_id: "call_01", name: output.call.name, arguments: output.call.arguments, status };
  return { type: "message", id: "msg_01", role: "assistant", status, content: [{ type: "output_text", text: output.text, annotations: [] }] };
}

/**
 * The SSE events of a streamed response (without blank lines): `response.created`, the item's
 * added / delta / done events (text in two deltas, function-call arguments in two), then
 * `response.completed` carrying the usage, as the Responses API streams them.
 */
export function responsesEvents(model: unknown, output: ResponsesOutput, usage: Json): string[] {
  let sequence = 0;
  const event = (type: string, payload: Json) => `event: ${type}\ndata: ${JSON.stringify({ type, sequence_number: sequence++, ...payload })}`;
  const pending = { ...responseObject(model, output, usage, "in_progress"), output: [], usage: null };
  const done = outputItem(output, "completed");
  const events = [event("response.created", { response: pending }), event("response.in_progress", { response: pending })];
  if ("call" in output) {
    const args = output.call.arguments;
    const half = Math.floor(args.length / 2);
    events.push(event("response.output_item.added", { output_index: 0, item: { ...done, arguments: "", status: "in_progress" } }));
    for (const delta of [args.slice(0, half), args.slice(half)]) events.push(event("response.function_call_arguments.delta", { item_id: done["id"], output_index: 0, delta }));
    events.push(event("response.function_call_arguments.done", { item_id: done["id"], output_index: 0, arguments: args }));
  } else {
    const text = output.text;
    const half = Math.ceil(text.length / 2);
    events.push(event("response.output_item.added", { output_index: 0, item: { ...done, status: "in_progress", content: [] } }));
    events.push(event("response.content_part.added", { item_id: done["id"], output_index: 0, content_index: 0, part: { type: "output_text", text: "", annotations: [] } }));
    for (const delta of [text.slice(0, half), text.slice(half)]) events.push(event("response.output_text.delta", { item_id: done["id"], output_index: 0, content_index: 0, delta }));
    events.push(event("response.output_text.done", { item_id: done["id"], output_index: 0, content_index: 0, text }));
    events.push(event("response.content_part.done", { item_id: done["id"], output_index: 0, content_index: 0, part: { type: "output_text", text, annotations: [] } }));
  }
  events.push(event("response.output_item.done", { output_index: 0, item: done }));
  events.push(event("response.completed", { response: responseObject(model, output, usage) }));
  return events;
}

/**
 * Answers like OpenAI's Responses API: a request with function tools gets a call of the first
 * one (arguments `{"city":"Berlin"}`), others "Hallo"; usage in the response (JSON) or in
 * `response.completed` (stream).
 */
export function responsesAnswer({ body }: ReceivedRequest): ScriptedAnswer {
  const tool = (body["tools"] as Json[] | undefined)?.find((t) => t["type"] === "function")?.["name"];
  const output: ResponsesOutput = typeof tool === "string" ? { call: { name: tool, arguments: '{"city":"Berlin"}' } } : { text: RESPONSES_TEXT };
  if (body["stream"] === true) return { sse: responsesEvents(body["model"], output, RESPONSES_USAGE) };
  return { json: responseObject(body["model"], output, RESPONSES_USAGE) };
}
