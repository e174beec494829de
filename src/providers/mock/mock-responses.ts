import { callText, eventFrame, type MockCall, type MockReply } from "./mock-call.ts";
import type { MockFrame } from "./mock-stream.ts";

/**
 * `POST /v1/responses`: a `response`, or the events response.created →
 * response.in_progress → output_item.added → content_part.added →
 * output_text.delta… → output_text.done → content_part.done → output_item.done →
 * response.completed (which carries the usage). No `[DONE]`, as upstream.
 */
export function openaiResponse(call: MockCall): MockReply {
  const text = callText(call);
  const responseId = `"resp_mock${call.id}"`;
  const itemId = `"msg_mock${call.id}"`;
  const maxOutput = typeof call.body["max_output_tokens"] === "number" ? String(call.body["max_output_tokens"]) : "null";
  const envelope = (status: string, output: string, usage: string): string =>
    `{"id":${responseId},"object":"response","created_at":${call.created},"status":"${status}","background":false,` +
    `"error":null,"incomplete_details":null,"instructions":null,"max_output_tokens":${maxOutput},"model":${call.modelJson},` +
    `"output":${output},"parallel_tool_calls":true,"previous_response_id":null,"reasoning":{"effort":null,"summary":null},` +
    `"service_tier":"default","store":false,"temperature":1,"text":{"format":{"type":"text"}},"tool_choice":"auto","tools":[],` +
    `"top_p":1,"truncation":"disabled","usage":${usage},"user":null,"metadata":{}}`;
  const part = `{"type":"output_text","text":${text.textJson},"annotations":[],"logprobs":[]}`;
  const item = `{"id":${itemId},"type":"message","status":"completed","role":"assistant","content":[${part}]}`;
  const usage =
    `{"input_tokens":${call.inputTokens},"input_tokens_details":{"cached_tokens":0},` +
    `"output_tokens":${call.outputTokens},"output_tokens_details":{"reasoning_tokens":0},` +
    `"total_tokens":${call.inputTokens + call.outputTokens}}`;
  if (!call.stream) return { kind: "json", body: envelope("completed", `[${item}]`, usage) };

  let sequence = 0;
  const frames: MockFrame[] = [];
  const push = (type: string, fields: string, paced = false): void => {
    frames.push(eventFrame(type, `{"type":"${type}","sequence_number":${sequence++},${fields}}`, paced));
  };
  const at = `"item_id":${itemId},"output_index":0,"content_index":0`;
  push("response.created", `"response":${envelope("in_progress", "[]", "null")}`);
  push("response.in_progress", `"response":${envelope("in_progress", "[]", "null")}`);
  push(
    "response.output_item.added",
    `"output_index":0,"item":{"id":${itemId},"type":"message","status":"in_progress","role":"assistant","content":[]}`,
  );
  push("response.content_part.added", `${at},"part":{"type":"output_text","text":"","annotations":[],"logprobs":[]}`);
  text.deltaJson.forEach((delta, i) => push("response.output_text.delta", `${at},"delta":${delta},"logprobs":[]`, i > 0));
  push("response.output_text.done", `${at},"text":${text.textJson},"logprobs":[]`);
  push("response.content_part.done", `${at},"part":${part}`);
  push("response.output_item.done", `"output_index":0,"item":${item}`);
  push("response.completed", `"response":${envelope("completed", `[${item}]`, usage)}`);
  return { kind: "stream", frames };
}
