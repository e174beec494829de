import { sseTransform } from "../translation/sse-transform.ts";
import { finishReasonOf, partsOf, usageOf } from "./openai-to-gemini-response.ts";

/** Gemini `streamGenerateContent?alt=sse` → OpenAI chat.completion.chunk SSE, with a final usage chunk. */

type Json = Record<string, unknown>;

const encoder = new TextEncoder();

/**
 * Translates the upstream SSE body. Each Gemini event is one `data:` JSON object; events that are
 * not JSON objects or carry no candidates are skipped (usage is still read). The usage chunk
 * comes from the last `usageMetadata` seen, then `[DONE]`. A stream that ends mid-event errors
 * the output, so the relay treats it as the cut it is.
 */
export function toChatCompletionStream(upstream: ReadableStream<Uint8Array>, model: string, id: string, created: number): ReadableStream<Uint8Array> {
  let usage: Json | undefined;
  let modelName = model;
  const started = new Set<number>();
  const toolCallCount = new Map<number, number>();
  const chunk = (choices: Json[], extra: Json = {}): Uint8Array =>
    encoder.encode(`data: ${JSON.stringify({ id, object: "chat.completion.chunk", created, model: modelName, choices, ...extra })}\n\n`);

  const translate = (data: string, out: TransformStreamDefaultController<Uint8Array>): void => {
    let event: unknown;
    try {
      event = JSON.parse(data);
    } catch {
      return;
    }
    if (typeof event !== "object" || event === null) return;
    const gemini = event as Json;
    if (typeof gemini["modelVersion"] === "string") modelName = gemini["modelVersion"];
    if (gemini["usageMetadata"] !== undefined) usage = gemini["usageMetadata"] as Json;
    const candidates = Array.isArray(gemini["candidates"]) ? (gemini["candidates"] as Json[]) : [];
    candidates.forEach((candidate, position) => {
      const index = typeof candidate["index"] === "number" ? candidate["index"] : position;
      const before = toolCallCount.get(index) ?? 0;
      const { text, toolCalls } = partsOf(candidate, (n) => `call_${id}_${index}_${before + n}`);
      const delta: Json = started.has(index) ? {} : { role: "assistant" };
      started.add(index);
      if (text !== "") delta["content"] = text;
      if (toolCalls.length > 0) {
        delta["tool_calls"] = toolCalls.map((call, n) => ({ index: before + n, ...call }));
        toolCallCount.set(index, before + toolCalls.length);
      }
      const finish = finishReasonOf(candidate["finishReason"], (toolCallCount.get(index) ?? 0) > 0);
      if (Object.keys(delta).length > 0 || finish !== null) out.enqueue(chunk([{ index, delta, finish_reason: finish, logprobs: null }]));
    });
  };

  return upstream.pipeThrough(
    sseTransform({
      event: translate,
      end(out) {
        out.enqueue(chunk([], { usage: usageOf(usage) }));
        out.enqueue(encoder.encode("data: [DONE]\n\n"));
      },
      unterminated: "cut",
    }),
  );
}
