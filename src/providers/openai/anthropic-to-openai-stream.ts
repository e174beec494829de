import { anthropicUsageOf, openAiToAnthropicError, stopReason } from "./anthropic-to-openai-response.ts";
import { sseTransform } from "../translation/sse-transform.ts";

type Json = Record<string, unknown>;

const encoder = new TextEncoder();
const sse = (type: string, payload: Json): Uint8Array => encoder.encode(`event: ${type}\ndata: ${JSON.stringify(payload)}\n\n`);

/**
 * OpenAI chat.completion.chunk SSE as Anthropic Messages SSE. The first chunk opens the
 * message (`message_start`); content deltas go to a text block, each tool call (by its index)
 * to a `tool_use` block whose `arguments` fragments are forwarded verbatim as
 * `input_json_delta`s; a block is closed when the next one opens. The finish reason and the
 * usage chunk (the request asks for it) make the final `message_delta`, then `message_stop`.
 * A stream that ends before a finish reason errors; unknown chunk shapes are skipped.
 */
export function openAiToAnthropicStream(): TransformStream<Uint8Array, Uint8Array> {
  let started = false;
  let finish: string | null = null;
  let usage: Json | undefined;
  let ended = false;
  /** The open Anthropic block: its index and what it carries ("text" or the tool call's index). */
  let open: { index: number; of: "text" | number } | null = null;
  let blocks = 0;

  const openBlock = (of: "text" | number, block: Json, out: TransformStreamDefaultController<Uint8Array>) => {
    if (open !== null) out.enqueue(sse("content_block_stop", { type: "content_block_stop", index: open.index }));
    open = { index: blocks++, of };
    out.enqueue(sse("content_block_start", { type: "content_block_start", index: open.index, content_block: block }));
  };
  const endMessage = (out: TransformStreamDefaultController<Uint8Array>) => {
    if (ended) return;
    ended = true;
    if (open !== null) out.enqueue(sse("content_block_stop", { type: "content_block_stop", index: open.index }));
    out.enqueue(sse("message_delta", { type: "message_delta", delta: { stop_reason: stopReason(finish), stop_sequence: null }, usage: anthropicUsageOf(usage) }));
    out.enqueue(sse("message_stop", { type: "message_stop" }));
  };

  return sseTransform({
    event(data, out) {
      if (data === "[DONE]") return endMessage(out);
      const chunk = JSON.parse(data) as Json;
      if (chunk["error"] !== undefined) {
        ended = true;
        return out.enqueue(sse("error", openAiToAnthropicError(chunk, 500)));
      }
      if (!started) {
        started = true;
        const message = { id: chunk["id"], type: "message", role: "assistant", model: chunk["model"], content: [], stop_reason: null, stop_sequence: null, usage: { input_tokens: 0, output_tokens: 0 } };
        out.enqueue(sse("message_start", { type: "message_start", message }));
      }
      if (chunk["usage"] !== undefined && chunk["usage"] !== null) usage = chunk["usage"] as Json;
      const choice = ((chunk["choices"] as Json[] | undefined) ?? [])[0];
      if (choice === undefined) return;
      const delta = (choice["delta"] as Json | undefined) ?? {};
      const text = delta["content"];
      if (typeof text === "string" && text !== "") {
        if (open?.of !== "text") openBlock("text", { type: "text", text: "" }, out);
        out.enqueue(sse("content_block_delta", { type: "content_block_delta", index: open!.index, delta: { type: "text_delta", text } }));
      }
      for (const call of (delta["tool_calls"] as Json[] | undefined) ?? []) {
        const fn = (call["function"] as Json | undefined) ?? {};
        if (open?.of !== call["index"]) openBlock(call["index"] as number, { type: "tool_use", id: call["id"], name: fn["name"], input: {} }, out);
        const args = fn["arguments"];
        if (typeof args === "string" && args !== "") out.enqueue(sse("content_block_delta", { type: "content_block_delta", index: open!.index, delta: { type: "input_json_delta", partial_json: args } }));
      }
      if (typeof choice["finish_reason"] === "string") finish = choice["finish_reason"];
    },
    end(out) {
      if (!ended && finish === null) return out.error(new Error("The upstream stream ended before its finish reason"));
      endMessage(out);
    },
  });
}
