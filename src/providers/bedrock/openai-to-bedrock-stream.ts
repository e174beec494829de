import { field } from "../../usage/usage-fields.ts";
import { describeBedrockError } from "./bedrock-errors.ts";
import { finishReason, openAiUsageOf } from "./openai-to-bedrock-response.ts";
import { EventStreamDecoder, EventStreamError, type EventMessage } from "./event-stream.ts";

export interface StreamContext {
  readonly id: string;
  readonly model: string;
  readonly includeUsage: boolean;
}

const encoder = new TextEncoder();
const decoder = new TextDecoder();

/**
 * ConverseStream's binary event stream as OpenAI chat.completion.chunk SSE. Unknown event types
 * are skipped; an in-stream exception, a bad checksum or a cut frame sends an OpenAI `error`
 * event (no `[DONE]`), so the caller's client raises a clean error, and then errors the stream
 * at the upstream's end (after the error event was read), so the relay treats it as a cut.
 */
export function converseStreamToSse(context: StreamContext): TransformStream<Uint8Array, Uint8Array> {
  const frames = new EventStreamDecoder();
  const created = Math.floor(Date.now() / 1000);
  /** Bedrock content block index → OpenAI tool_calls index. */
  const toolIndex = new Map<number, number>();
  let failed = false;
  const chunk = (delta: Record<string, unknown>, finish: string | null = null): Uint8Array =>
    sse({ id: context.id, object: "chat.completion.chunk", created, model: context.model,
      choices: [{ index: 0, delta, logprobs: null, finish_reason: finish }] });

  function translate(message: EventMessage): Uint8Array | null {
    const payload: unknown = message.payload.length > 0 ? JSON.parse(decoder.decode(message.payload)) : {};
    if (message.headers[":message-type"] !== "event") {
      const type = message.headers[":exception-type"] ?? message.headers[":error-code"] ?? "UnknownError";
      failed = true;
      return errorEvent(describeBedrockError(type.charAt(0).toUpperCase() + type.slice(1), field(payload, "message")), type);
    }
    const block = field(payload, "contentBlockIndex");
    switch (message.headers[":event-type"]) {
      case "messageStart":
        return chunk({ role: "assistant", content: "" });
      case "contentBlockStart": {
        const use = field(field(payload, "start"), "toolUse");
        if (use === undefined || typeof block !== "number") return null;
        const index = toolIndex.size;
        toolIndex.set(block, index);
        return chunk({ tool_calls: [{ index, id: field(use, "toolUseId"), type: "function", function: { name: field(use, "name"), arguments: "" } }] });
      }
      case "contentBlockDelta": {
        const delta = field(payload, "delta");
        const text = field(delta, "text");
        if (typeof text === "string") return chunk({ content: text });
        const input = field(field(delta, "toolUse"), "input");
        const index = typeof block === "number" ? toolIndex.get(block) : undefined;
        if (typeof input === "string" && index !== undefined) return chunk({ tool_calls: [{ index, function: { arguments: input } }] });
        return null;
      }
      case "messageStop":
        return chunk({}, finishReason(field(payload, "stopReason")));
      case "metadata":
        if (!context.includeUsage) return null;
        return sse({ id: context.id, object: "chat.completion.chunk", created, model: context.model, choices: [],
          usage: openAiUsageOf(field(payload, "usage")) });
      default:
        return null; // contentBlockStop and event types added after this was written
    }
  }

  return new TransformStream({
    transform(bytes, controller) {
      if (failed) return;
      try {
        for (const message of frames.push(bytes)) {
          const out = translate(message);
          if (out !== null) controller.enqueue(out);
          if (failed) return;
        }
      } catch (error) {
        failed = true;
        controller.enqueue(errorEvent(streamFault(error), "stream_error"));
      }
    },
    flush(controller) {
      // The caller has its error event; the stream itself ends in error, so the relay journals
      // the call as the failed stream it is (charged its reservation), not as a whole answer.
      if (failed) throw new Error("the Bedrock stream failed");
      try {
        frames.finish();
        controller.enqueue(encoder.encode("data: [DONE]\n\n"));
      } catch (error) {
        controller.enqueue(errorEvent(streamFault(error), "stream_error"));
        failed = true;
      }
      if (failed) throw new Error("the Bedrock stream was cut mid-frame");
    },
  });
}

function streamFault(error: unknown): string {
  if (error instanceof EventStreamError) return `Bedrock stream is malformed: ${error.message}`;
  if (error instanceof SyntaxError) return "Bedrock stream is malformed: an event payload is not JSON";
  throw error;
}

function sse(value: unknown): Uint8Array {
  return encoder.encode(`data: ${JSON.stringify(value)}\n\n`);
}

function errorEvent(message: string, code: string): Uint8Array {
  return sse({ error: { message, type: "server_error", param: null, code } });
}
