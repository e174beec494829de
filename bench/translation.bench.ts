/**
 * Micro-benchmark of OpenAI ⇄ Anthropic translation: `node_modules/.bin/bun bench/translation.bench.ts`.
 * Per call: a chat request translated to Messages and back, a JSON answer each way. Per stream:
 * the shared fixture streams (7 Anthropic events, 6 OpenAI chunks) through each stream
 * translator, with a pass-through TransformStream as the baseline; µs per chunk = mean / chunks.
 */
import { Bench } from "tinybench";
import { anthropicToOpenAiRequest } from "../src/providers/openai/anthropic-to-openai-request.ts";
import { anthropicToOpenAiResponse } from "../src/providers/anthropic/openai-to-anthropic-response.ts";
import { anthropicToOpenAiStream } from "../src/providers/anthropic/openai-to-anthropic-stream.ts";
import { openAiToAnthropicRequest } from "../src/providers/anthropic/openai-to-anthropic-request.ts";
import { openAiToAnthropicResponse } from "../src/providers/openai/anthropic-to-openai-response.ts";
import { openAiToAnthropicStream } from "../src/providers/openai/anthropic-to-openai-stream.ts";
import { anthropicEvents, openAiEvents } from "../test/support/usage-sse-fixtures.ts";

const enc = new TextEncoder();
const options = { dropUnsupported: false, outputLimit: undefined };
const CHAT = new TextEncoder().encode(JSON.stringify({
  model: "claude-sonnet-4-5",
  messages: [{ role: "system", content: "Be brief." }, { role: "user", content: [{ type: "text", text: "What is in this picture?" }, { type: "image_url", image_url: { url: "https://example.com/a.png" } }] }],
  tools: [{ type: "function", function: { name: "weather", parameters: { type: "object", properties: { city: { type: "string" } } } } }],
  max_tokens: 256,
  temperature: 0.2,
}));
const MESSAGES = enc.encode(JSON.stringify({ model: "gpt-4o", system: "Be brief.", max_tokens: 256, messages: [{ role: "user", content: "What is the weather?" }], tools: [{ name: "weather", input_schema: { type: "object" } }] }));
const MESSAGE = enc.encode(JSON.stringify({ id: "msg_1", type: "message", role: "assistant", model: "claude-sonnet-4-5", content: [{ type: "text", text: "The quick brown fox." }], stop_reason: "end_turn", usage: { input_tokens: 25, output_tokens: 6, cache_read_input_tokens: 10 } }));
const COMPLETION = enc.encode(JSON.stringify({ id: "c1", object: "chat.completion", model: "gpt-4o", choices: [{ index: 0, message: { role: "assistant", content: "The quick brown fox." }, finish_reason: "stop" }], usage: { prompt_tokens: 25, completion_tokens: 6, total_tokens: 31 } }));
const dec = new TextDecoder();
const parse = (bytes: Uint8Array) => JSON.parse(dec.decode(bytes)) as Record<string, unknown>;

const ANTHROPIC = anthropicEvents().map((event) => enc.encode(`${event}\n\n`));
const OPENAI = openAiEvents().map((event) => enc.encode(`${event}\n\n`));

async function piped(chunks: Uint8Array[], transform: TransformStream<Uint8Array, Uint8Array>): Promise<void> {
  const reader = new ReadableStream<Uint8Array>({
    start(controller) {
      for (const chunk of chunks) controller.enqueue(chunk);
      controller.close();
    },
  }).pipeThrough(transform).getReader();
  while (!(await reader.read()).done);
}

const calls = new Bench({ name: "translation per call (JSON parse + translate + serialize)", time: 1000 });
calls
  .add("request OpenAI chat → Anthropic", () => void enc.encode(JSON.stringify(openAiToAnthropicRequest(parse(CHAT), options))))
  .add("request Anthropic → OpenAI chat", () => void enc.encode(JSON.stringify(anthropicToOpenAiRequest(parse(MESSAGES), options))))
  .add("answer Anthropic → OpenAI", () => void enc.encode(JSON.stringify(anthropicToOpenAiResponse(parse(MESSAGE), 1))))
  .add("answer OpenAI → Anthropic", () => void enc.encode(JSON.stringify(openAiToAnthropicResponse(parse(COMPLETION)))));

const streams = new Bench({ name: `stream translation (${ANTHROPIC.length} Anthropic events, ${OPENAI.length} OpenAI chunks)`, time: 1000 });
streams
  .add("baseline: identity TransformStream, Anthropic events", () => piped(ANTHROPIC, new TransformStream()))
  .add("Anthropic SSE → OpenAI chunks", () => piped(ANTHROPIC, anthropicToOpenAiStream(1)))
  .add("baseline: identity TransformStream, OpenAI chunks", () => piped(OPENAI, new TransformStream()))
  .add("OpenAI chunks → Anthropic SSE", () => piped(OPENAI, openAiToAnthropicStream()));

for (const b of [calls, streams]) {
  await b.run();
  console.log(b.name);
  console.table(b.table());
}
