/**
 * Micro-benchmark of the SSE usage tap (the relay's streamed body) and the synchronous usage
 * scanner under it: `node_modules/.bin/bun bench/usage-tap.bench.ts`. The baseline rows re-wrap
 * the upstream in the same pull stream without scanning.
 */
import { Bench } from "tinybench";
import { createUsageScanner } from "../src/usage/usage-scanner.ts";
import { createUsageTap } from "../src/usage/usage-tap.ts";

const enc = new TextEncoder();

function chat(delta: string, finish: string): string {
  return `data: {"id":"chatcmpl-B9MBs8CjcvOU2jLn4n570S5qMJKcT","object":"chat.completion.chunk","created":1741570283,"model":"gpt-4o-2024-08-06","service_tier":"default","system_fingerprint":"fp_fc9f1d7035","choices":[{"index":0,"delta":${delta},"logprobs":null,"finish_reason":${finish}}],"usage":null}\n\n`;
}

/** 8 chunks as OpenAI sends them with include_usage: role, 4 deltas, stop, usage-only, [DONE]. */
const OPENAI = [
  chat('{"role":"assistant","content":"","refusal":null}', "null"),
  chat('{"content":"The"}', "null"),
  chat('{"content":" quick brown"}', "null"),
  chat('{"content":" fox jumps over"}', "null"),
  chat('{"content":" the lazy dog."}', "null"),
  chat("{}", '"stop"'),
  'data: {"id":"chatcmpl-B9MBs8CjcvOU2jLn4n570S5qMJKcT","object":"chat.completion.chunk","created":1741570283,"model":"gpt-4o-2024-08-06","service_tier":"default","system_fingerprint":"fp_fc9f1d7035","choices":[],"usage":{"prompt_tokens":19,"completion_tokens":10,"total_tokens":29,"prompt_tokens_details":{"cached_tokens":0,"audio_tokens":0},"completion_tokens_details":{"reasoning_tokens":0,"audio_tokens":0,"accepted_prediction_tokens":0,"rejected_prediction_tokens":0}}}\n\n',
  "data: [DONE]\n\n",
].map((s) => enc.encode(s));

const ANTHROPIC = [
  'event: message_start\ndata: {"type":"message_start","message":{"id":"msg_1nZdL29xx5MUA1yADyHTEsnR8uuvGzszyY","type":"message","role":"assistant","content":[],"model":"claude-sonnet-4-5-20250929","stop_reason":null,"stop_sequence":null,"usage":{"input_tokens":25,"cache_creation_input_tokens":0,"cache_read_input_tokens":0,"output_tokens":1}}}\n\n',
  'event: content_block_start\ndata: {"type":"content_block_start","index":0,"content_block":{"type":"text","text":""}}\n\n',
  'event: ping\ndata: {"type": "ping"}\n\n',
  'event: content_block_delta\ndata: {"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"The quick brown"}}\n\n',
  'event: content_block_delta\ndata: {"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":" fox jumps over the lazy dog."}}\n\n',
  'event: content_block_stop\ndata: {"type":"content_block_stop","index":0}\n\n',
  'event: message_delta\ndata: {"type":"message_delta","delta":{"stop_reason":"end_turn","stop_sequence":null},"usage":{"output_tokens":15}}\n\n',
  'event: message_stop\ndata: {"type":"message_stop"}\n\n',
].map((s) => enc.encode(s));

/** ~1 MiB of content chunks (with `"usage":null`) in 64 KiB pieces cut mid-event, then usage. */
const BULK = (() => {
  const body = enc.encode(OPENAI.slice(1, 5).map((c) => new TextDecoder().decode(c)).join("").repeat(1100));
  const pieces: Uint8Array[] = [];
  for (let i = 0; i < body.length; i += 65_536) pieces.push(body.subarray(i, i + 65_536));
  return [...pieces, OPENAI[6]!, OPENAI[7]!];
})();
const BULK_BYTES = BULK.reduce((sum, c) => sum + c.length, 0);

function upstream(chunks: readonly Uint8Array[]): ReadableStream<Uint8Array> {
  let i = 0;
  return new ReadableStream<Uint8Array>({
    pull(controller) {
      if (i < chunks.length) controller.enqueue(chunks[i++]!);
      else controller.close();
    },
  });
}

async function drain(body: ReadableStream<Uint8Array>): Promise<void> {
  const reader = body.getReader();
  while (!(await reader.read()).done);
}

/** The relay's body: the upstream through the production usage tap. */
async function tapped(chunks: readonly Uint8Array[], format: "openai" | "anthropic", dropUsageChunk: boolean): Promise<void> {
  const tap = createUsageTap(upstream(chunks), format, { dropUsageChunk }, () => {});
  await drain(tap.body);
  if (tap.usage() === null) throw new Error("no usage recorded");
}

/** Runs the scanner over the chunks with no stream at all: the pure per-chunk cost. */
function scanned(chunks: readonly Uint8Array[], format: "openai" | "anthropic", dropUsageChunk: boolean): number {
  const scanner = createUsageScanner(format, { dropUsageChunk });
  let bytes = 0;
  for (const chunk of chunks) bytes += scanner.push(chunk).length;
  bytes += scanner.end().length;
  if (scanner.usage() === null) throw new Error("no usage recorded");
  return bytes;
}

/** Baseline: the same pull-based re-wrap of the upstream, without scanning. */
async function wrapped(chunks: readonly Uint8Array[]): Promise<void> {
  const reader = upstream(chunks).getReader();
  const body = new ReadableStream<Uint8Array>(
    {
      async pull(stream) {
        const { done, value } = await reader.read();
        if (done) stream.close();
        else stream.enqueue(value);
      },
    },
    { highWaterMark: 0 },
  );
  await drain(body);
}

const direct = new Bench({ name: "usage scanner, direct (no streams), 8-chunk streams", time: 1000 });
direct
  .add("scanner OpenAI 8 chunks, keep usage chunk", () => void scanned(OPENAI, "openai", false))
  .add("scanner OpenAI 8 chunks, drop usage chunk", () => void scanned(OPENAI, "openai", true))
  .add("scanner Anthropic 8 events", () => void scanned(ANTHROPIC, "anthropic", false))
  .add("scanner OpenAI bulk, keep usage chunk", () => void scanned(BULK, "openai", false))
  .add("scanner OpenAI bulk, drop usage chunk", () => void scanned(BULK, "openai", true));

const bench = new Bench({ name: "usage tap (8-chunk streams)", time: 1000 });
bench
  .add("baseline: pull re-wrap without scanning, OpenAI 8 chunks", () => wrapped(OPENAI))
  .add("tap OpenAI 8 chunks, keep usage chunk", () => tapped(OPENAI, "openai", false))
  .add("tap OpenAI 8 chunks, drop usage chunk", () => tapped(OPENAI, "openai", true))
  .add("tap Anthropic 8 events", () => tapped(ANTHROPIC, "anthropic", false));

const bulk = new Bench({ name: `usage tap, bulk: ${(BULK_BYTES / 1_048_576).toFixed(2)} MiB in ${BULK.length} chunks`, time: 1000 });
bulk
  .add("baseline: pull re-wrap without scanning, bulk", () => wrapped(BULK))
  .add("tap OpenAI bulk, keep usage chunk", () => tapped(BULK, "openai", false))
  .add("tap OpenAI bulk, drop usage chunk", () => tapped(BULK, "openai", true));

for (const b of [direct, bench, bulk]) {
  await b.run();
  console.log(b.name);
  console.table(b.table());
}
