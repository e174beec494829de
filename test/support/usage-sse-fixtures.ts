/** SSE test vectors shared by the usage tap and usage scanner tests (not a test file itself). */
const dec = new TextDecoder();

/** An OpenAI chat.completion.chunk event (`data:` line, no terminator); null content = the stop chunk. */
export function chatChunk(content: string | null, extra = ""): string {
  const delta = content === null ? "{}" : JSON.stringify({ content });
  const finish = content === null ? '"stop"' : "null";
  return `data: {"id":"c1","object":"chat.completion.chunk","created":1,"model":"gpt-4o","choices":[{"index":0,"delta":${delta},"finish_reason":${finish}}]${extra}}`;
}

/** The OpenAI usage-only chunk (`"choices":[]` with usage). */
export const USAGE_EVENT =
  'data: {"id":"c1","object":"chat.completion.chunk","created":1,"model":"gpt-4o","choices":[],"usage":{"prompt_tokens":20,"completion_tokens":8,"total_tokens":28,"prompt_tokens_details":{"cached_tokens":4}}}';

/** OpenAI chat stream with include_usage: every chunk has "usage":null, then the usage-only chunk. */
export function openAiEvents(): string[] {
  return [
    chatChunk("", ',"usage":null'),
    chatChunk("Hello", ',"usage":null'),
    chatChunk(" world", ',"usage":null'),
    chatChunk(null, ',"usage":null'),
    USAGE_EVENT,
    "data: [DONE]",
  ];
}
/** The usage of openAiEvents(). */
export const OPENAI_USAGE = { inputTokens: 16, cachedInputTokens: 4, outputTokens: 8, responseModel: "gpt-4o" };

/** An Anthropic Messages stream (events without terminators); `\n` separates lines. */
export function anthropicEvents(): string[] {
  return [
    'event: message_start\ndata: {"type":"message_start","message":{"id":"m1","type":"message","role":"assistant","content":[],"model":"claude","usage":{"input_tokens":25,"cache_read_input_tokens":100,"cache_creation_input_tokens":5,"output_tokens":1}}}',
    'event: content_block_start\ndata: {"type":"content_block_start","index":0,"content_block":{"type":"text","text":""}}',
    "event: ping\ndata: {\"type\": \"ping\"}",
    'event: content_block_delta\ndata: {"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"Hi \\"usage\\": 5"}}',
    'event: content_block_stop\ndata: {"type":"content_block_stop","index":0}',
    'event: message_delta\ndata: {"type":"message_delta","delta":{"stop_reason":"end_turn"},"usage":{"output_tokens":12}}',
    'event: message_stop\ndata: {"type":"message_stop"}',
  ];
}
/** The usage of anthropicEvents(). */
export const ANTHROPIC_USAGE = { inputTokens: 30, cachedInputTokens: 100, outputTokens: 12, cacheWrite5mTokens: 5, responseModel: "claude" };

/** Joins events into an SSE body with `eol` line endings, each event ended by a blank line. */
export function join(events: string[], eol: string): string {
  return events.map((e) => e.replaceAll("\n", eol) + eol + eol).join("");
}

/** Decodes chunks of ASCII test text. */
export function text(chunks: Uint8Array[]): string {
  return chunks.map((c) => dec.decode(c)).join("");
}

/** Copies `bytes` into chunks cut at the given offsets. */
export function splitAt(bytes: Uint8Array, ...cuts: number[]): Uint8Array[] {
  const parts: Uint8Array[] = [];
  let start = 0;
  for (const cut of [...cuts, bytes.length]) {
    parts.push(bytes.slice(start, cut));
    start = cut;
  }
  return parts;
}
