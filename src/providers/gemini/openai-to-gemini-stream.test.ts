import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { sseJson } from "../../../test/support/mock-test-support.ts";
import { toChatCompletionStream } from "./openai-to-gemini-stream.ts";

const encoder = new TextEncoder();

/** Runs `text` through the Gemini stream translation cut into `size`-byte chunks; the output text, or the error. */
async function run(text: string, size: number): Promise<string> {
  const bytes = encoder.encode(text);
  const upstream = new ReadableStream<Uint8Array>({
    start(controller) {
      for (let i = 0; i < bytes.length; i += size) controller.enqueue(bytes.slice(i, i + size));
      controller.close();
    },
  });
  return await new Response(toChatCompletionStream(upstream, "gemini-x", "chat_1", 1)).text();
}

const events = (eol: string) =>
  [
    { candidates: [{ content: { parts: [{ text: "Hel" }] } }], modelVersion: "gemini-x-001" },
    { candidates: [{ content: { parts: [{ text: "lo" }] }, finishReason: "STOP" }], usageMetadata: { promptTokenCount: 7, candidatesTokenCount: 2, totalTokenCount: 9 } },
  ]
    .map((event) => `data: ${JSON.stringify(event)}${eol}${eol}`)
    .join("");

describe("Gemini SSE → OpenAI chunks", () => {
  for (const [eol, size] of [["\r\n", 1], ["\n", 5], ["\r\n", 4096]] as const) {
    test(`text, finish reason, a usage chunk and [DONE], whatever the chunking (${JSON.stringify(eol)}, ${size}-byte chunks)`, async () => {
      const out = await run(events(eol), size);
      assert.ok(out.endsWith("data: [DONE]\n\n"));
      const chunks = sseJson(out) as Array<{ model: string; choices: Array<{ delta: { content?: string }; finish_reason: string | null }>; usage?: Record<string, unknown> }>;
      assert.equal(chunks.flatMap((chunk) => chunk.choices.map((choice) => choice.delta.content ?? "")).join(""), "Hello");
      assert.equal(chunks.flatMap((chunk) => chunk.choices).at(-1)?.finish_reason, "stop");
      assert.equal(chunks.at(-1)!.model, "gemini-x-001");
      assert.deepEqual(chunks.at(-1)!.choices, []);
      assert.equal(chunks.at(-1)!.usage?.["prompt_tokens"], 7);
      assert.equal(chunks.at(-1)!.usage?.["completion_tokens"], 2);
    });
  }

  test("a stream that ends inside an event errors instead of ending with usage and [DONE]", async () => {
    const whole = events("\r\n");
    await assert.rejects(run(whole.slice(0, whole.length - 10), 64));
  });
});
