import { sseTransform } from "../translation/sse-transform.ts";
import { anthropicToOpenAiError, finishReason, openAiUsageOf } from "./openai-to-anthropic-response.ts";

type Json = Record<string, unknown>;

const encoder = new TextEncoder();

/**
 * Anthropic Messages SSE as OpenAI chat.completion.chunk SSE. Text deltas become `content`
 * deltas, each `tool_use` block a tool call (its index counted over tool blocks) whose
 * `input_json_delta` fragments are forwarded verbatim as `arguments` deltas, so the client's
 * concatenation is exactly the provider's JSON. `message_delta` gives the finish reason,
 * `message_stop` the usage chunk (choices empty) and `[DONE]`. Unknown events are skipped; an
 * `error` event becomes an OpenAI error event; a stream that ends before `message_stop` errors.
 */
export function anthropicToOpenAiStream(created: number): TransformStream<Uint8Array, Uint8Array> {
  let id = "";
  let model = "";
  let usage: Json = {};
  let stopped = false;
  /** Anthropic block index → OpenAI tool-call index, for tool_use blocks. */
  const toolIndex = new Map<number, number>();
  const chunk = (delta: Json, finish: string | null = null): Uint8Array =>
    encoder.encode(`data: ${JSON.stringify({ id, object: "chat.completion.chunk", created, model, choices: [{ index: 0, delta, finish_reason: finish, logprobs: null }] })}\n\n`);

  const handle = (data: string, out: TransformStreamDefaultController<Uint8Array>) => {
    const event = JSON.parse(data) as Json;
    switch (event["type"]) {
      case "message_start": {
        const message = event["message"] as Json;
        id = String(message["id"] ?? "");
        model = String(message["model"] ?? "");
        usage = { ...((message["usage"] as Json | undefined) ?? {}) };
        out.enqueue(chunk({ role: "assistant", content: "" }));
        return;
      }
      case "content_block_start": {
        const block = event["content_block"] as Json;
        if (block["type"] === "tool_use") {
          const index = toolIndex.size;
          toolIndex.set(event["index"] as number, index);
          out.enqueue(chunk({ tool_calls: [{ index, id: block["id"], type: "function", function: { name: block["name"], arguments: "" } }] }));
        } else if (block["type"] === "text" && typeof block["text"] === "string" && block["text"] !== "") out.enqueue(chunk({ content: block["text"] }));
        return;
      }
      case "content_block_delta": {
        const delta = event["delta"] as Json;
        if (delta["type"] === "text_delta") out.enqueue(chunk({ content: delta["text"] }));
        else if (delta["type"] === "input_json_delta") {
          const index = toolIndex.get(event["index"] as number);
          if (index !== undefined) out.enqueue(chunk({ tool_calls: [{ index, function: { arguments: delta["partial_json"] } }] }));
        }
        return;
      }
      case "message_delta": {
        usage = { ...usage, ...((event["usage"] as Json | undefined) ?? {}) };
        out.enqueue(chunk({}, finishReason((event["delta"] as Json | undefined)?.["stop_reason"]) ?? "stop"));
        return;
      }
      case "message_stop":
        stopped = true;
        out.enqueue(encoder.encode(`data: ${JSON.stringify({ id, object: "chat.completion.chunk", created, model, choices: [], usage: openAiUsageOf(usage) })}\n\ndata: [DONE]\n\n`));
        return;
      case "error":
        stopped = true;
        out.enqueue(encoder.encode(`data: ${JSON.stringify(anthropicToOpenAiError(event))}\n\n`));
        return;
      default:
        // ping, content_block_stop, thinking/signature deltas and future event types.
        return;
    }
  };

  return sseTransform({
    event: handle,
    end(out) {
      if (!stopped) out.error(new Error("The upstream stream ended before message_stop"));
    },
  });
}
