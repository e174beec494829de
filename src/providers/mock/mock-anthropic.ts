import { callText, eventFrame, type MockCall, type MockReply } from "./mock-call.ts";
import type { MockFrame } from "./mock-stream.ts";

/**
 * `POST /v1/messages`: a `message`, or the event sequence message_start →
 * content_block_start → ping → content_block_delta… → content_block_stop →
 * message_delta → message_stop. Input usage comes in message_start, output in message_delta.
 */
export function anthropicMessage(call: MockCall): MockReply {
  const text = callText(call);
  const id = `"msg_mock${call.id}"`;
  if (!call.stream) {
    const body =
      `{"id":${id},"type":"message","role":"assistant","model":${call.modelJson},` +
      `"content":[{"type":"text","text":${text.textJson}}],"stop_reason":"end_turn","stop_sequence":null,` +
      `"usage":{"input_tokens":${call.inputTokens},"cache_creation_input_tokens":0,"cache_read_input_tokens":0,"output_tokens":${call.outputTokens}}}`;
    return { kind: "json", body };
  }
  const frames: MockFrame[] = [
    eventFrame(
      "message_start",
      `{"type":"message_start","message":{"id":${id},"type":"message","role":"assistant","model":${call.modelJson},` +
        `"content":[],"stop_reason":null,"stop_sequence":null,` +
        `"usage":{"input_tokens":${call.inputTokens},"cache_creation_input_tokens":0,"cache_read_input_tokens":0,"output_tokens":1}}}`,
      false,
    ),
    CONTENT_BLOCK_START,
    PING,
  ];
  text.deltaJson.forEach((delta, i) => {
    frames.push(
      eventFrame("content_block_delta", `{"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":${delta}}}`, i > 0),
    );
  });
  frames.push(
    CONTENT_BLOCK_STOP,
    eventFrame(
      "message_delta",
      `{"type":"message_delta","delta":{"stop_reason":"end_turn","stop_sequence":null},"usage":{"output_tokens":${call.outputTokens}}}`,
      false,
    ),
    MESSAGE_STOP,
  );
  return { kind: "stream", frames };
}

/** `POST /v1/messages/count_tokens`: `{"input_tokens": N}`. */
export function anthropicCountTokens(call: MockCall): MockReply {
  return { kind: "json", body: `{"input_tokens":${call.inputTokens}}` };
}

const CONTENT_BLOCK_START = eventFrame(
  "content_block_start",
  `{"type":"content_block_start","index":0,"content_block":{"type":"text","text":""}}`,
  false,
);
const PING = eventFrame("ping", `{"type":"ping"}`, false);
const CONTENT_BLOCK_STOP = eventFrame("content_block_stop", `{"type":"content_block_stop","index":0}`, false);
const MESSAGE_STOP = eventFrame("message_stop", `{"type":"message_stop"}`, false);
