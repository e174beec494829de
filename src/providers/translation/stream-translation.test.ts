import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { sseJson } from "../../../test/support/mock-test-support.ts";
import { anthropicToOpenAiStream } from "../anthropic/openai-to-anthropic-stream.ts";
import { openAiToAnthropicStream } from "../openai/anthropic-to-openai-stream.ts";

const encoder = new TextEncoder();

/** Runs `text` through `transform` cut into `size`-byte chunks; the output text, or the error. */
async function run(transform: TransformStream<Uint8Array, Uint8Array>, text: string, size: number): Promise<string> {
  const bytes = encoder.encode(text);
  const source = new ReadableStream<Uint8Array>({
    start(controller) {
      for (let i = 0; i < bytes.length; i += size) controller.enqueue(bytes.slice(i, i + size));
      controller.close();
    },
  });
  return await new Response(source.pipeThrough(transform)).text();
}

const ARGS = '{"q":"caf\u00e9 \\"au lait\\"","n":[1,2]}';
const anthropicEvents = (eol: string) =>
  [
    `event: message_start${eol}data: {"type":"message_start","message":{"id":"msg_1","model":"claude-x","usage":{"input_tokens":10,"cache_read_input_tokens":4,"output_tokens":1}}}`,
    `event: content_block_start${eol}data: {"type":"content_block_start","index":0,"content_block":{"type":"text","text":""}}`,
    `event: content_block_delta${eol}data: {"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"h\u00e9"}}`,
    `event: content_block_start${eol}data: {"type":"content_block_start","index":1,"content_block":{"type":"tool_use","id":"toolu_1","name":"find","input":{}}}`,
    ...[ARGS.slice(0, 4), ARGS.slice(4, 12), ARGS.slice(12)].map((part) => `event: content_block_delta${eol}data: ${JSON.stringify({ type: "content_block_delta", index: 1, delta: { type: "input_json_delta", partial_json: part } })}`),
    `event: brand_new_event${eol}data: {"type":"brand_new_event","x":1}`,
    `: a comment`,
    `event: message_delta${eol}data: {"type":"message_delta","delta":{"stop_reason":"tool_use"},"usage":{"output_tokens":6}}`,
    `event: message_stop${eol}data: {"type":"message_stop"}`,
  ]
    .map((event) => event + eol + eol)
    .join("");

describe("Anthropic SSE → OpenAI chunks", () => {
  for (const [eol, size] of [["\n", 1], ["\r\n", 7], ["\n", 4096]] as const) {
    test(`text, tool-call arguments and usage, whatever the chunking (${JSON.stringify(eol)}, ${size}-byte chunks)`, async () => {
      const out = await run(anthropicToOpenAiStream(1), anthropicEvents(eol), size);
      assert.ok(out.endsWith("data: [DONE]\n\n"));
      const chunks = sseJson(out.replace("data: [DONE]\n\n", "")) as Array<{ choices: Array<{ delta: { content?: string; tool_calls?: Array<{ index: number; function: { arguments?: string; name?: string } }> }; finish_reason: string | null }>; usage?: Record<string, unknown> }>;
      const deltas = chunks.flatMap((chunk) => chunk.choices.map((choice) => choice.delta));
      assert.equal(deltas.map((delta) => delta.content ?? "").join(""), "h\u00e9");
      assert.equal(deltas.flatMap((delta) => delta.tool_calls ?? []).map((call) => call.function.arguments ?? "").join(""), ARGS);
      assert.equal(chunks.flatMap((chunk) => chunk.choices).find((choice) => choice.finish_reason !== null)?.finish_reason, "tool_calls");
      assert.deepEqual(chunks.at(-1)!.usage, { prompt_tokens: 14, completion_tokens: 6, total_tokens: 20, prompt_tokens_details: { cached_tokens: 4 } });
    });
  }

  test("a stream cut before message_stop errors instead of ending cleanly", async () => {
    const cut = anthropicEvents("\n").split("event: message_delta")[0]!;
    await assert.rejects(run(anthropicToOpenAiStream(1), cut, 64), /ended before message_stop/);
  });

  test("a stream cut mid-event errors", async () => {
    const whole = anthropicEvents("\n");
    await assert.rejects(run(anthropicToOpenAiStream(1), whole.slice(0, whole.indexOf("input_json_delta") + 10), 64));
  });

  test("an error event becomes an OpenAI error object", async () => {
    const out = await run(anthropicToOpenAiStream(1), `event: error\ndata: {"type":"error","error":{"type":"overloaded_error","message":"Overloaded"}}\n\n`, 16);
    assert.deepEqual(sseJson(out), [{ error: { message: "Overloaded", type: "server_error", param: null, code: "overloaded_error" } }]);
  });
});

const openAiChunks = (eol: string) =>
  [
    { id: "c1", model: "gpt-x", choices: [{ index: 0, delta: { role: "assistant", content: "" }, finish_reason: null }] },
    { id: "c1", model: "gpt-x", choices: [{ index: 0, delta: { content: "Hi" }, finish_reason: null }] },
    { id: "c1", model: "gpt-x", choices: [{ index: 0, delta: { tool_calls: [{ index: 0, id: "call_a", type: "function", function: { name: "a", arguments: "" } }] }, finish_reason: null }] },
    ...[ARGS.slice(0, 5), ARGS.slice(5)].map((part) => ({ id: "c1", model: "gpt-x", choices: [{ index: 0, delta: { tool_calls: [{ index: 0, function: { arguments: part } }] }, finish_reason: null }] })),
    { id: "c1", model: "gpt-x", choices: [{ index: 0, delta: { tool_calls: [{ index: 1, id: "call_b", type: "function", function: { name: "b", arguments: "{}" } }] }, finish_reason: null }] },
    { id: "c1", model: "gpt-x", choices: [{ index: 0, delta: {}, finish_reason: "tool_calls" }] },
    { id: "c1", model: "gpt-x", choices: [], usage: { prompt_tokens: 30, completion_tokens: 5, prompt_tokens_details: { cached_tokens: 10 } } },
  ]
    .map((chunk) => `data: ${JSON.stringify(chunk)}${eol}${eol}`)
    .join("") + `data: [DONE]${eol}${eol}`;

describe("OpenAI chunks → Anthropic SSE", () => {
  for (const size of [1, 5, 4096]) {
    test(`blocks per text and tool call, arguments verbatim, usage in the final message_delta (${size}-byte chunks)`, async () => {
      const events = sseJson(await run(openAiToAnthropicStream(), openAiChunks("\n"), size)) as Array<{ type: string; index?: number; delta?: { type?: string; partial_json?: string }; content_block?: unknown }>;
      assert.deepEqual(events.map((event) => event.type), [
        "message_start", "content_block_start", "content_block_delta",
        "content_block_stop", "content_block_start", "content_block_delta", "content_block_delta",
        "content_block_stop", "content_block_start", "content_block_delta",
        "content_block_stop", "message_delta", "message_stop",
      ]);
      const args = events.filter((event) => event.delta?.type === "input_json_delta" && event.index === 1).map((event) => event.delta!.partial_json).join("");
      assert.equal(args, ARGS);
      assert.deepEqual(events[8]!.content_block, { type: "tool_use", id: "call_b", name: "b", input: {} });
      assert.deepEqual(events.at(-2), { type: "message_delta", delta: { stop_reason: "tool_use", stop_sequence: null }, usage: { input_tokens: 20, cache_read_input_tokens: 10, cache_creation_input_tokens: 0, output_tokens: 5 } });
    });
  }

  test("a stream that ends before its finish reason errors", async () => {
    const cut = openAiChunks("\n").split('"finish_reason":"tool_calls"')[0]!;
    await assert.rejects(run(openAiToAnthropicStream(), cut.slice(0, cut.lastIndexOf("data:")), 32), /ended before its finish reason/);
  });
});
