/**
 * Deterministic mock text and token arithmetic: one word is one token, and
 * stream deltas are cached per (tokens, chunks) so requests share them.
 */

/** Output tokens used when the request sets no limit. */
export const DEFAULT_OUTPUT_TOKENS = 16;
/** Largest output the mock produces, whatever the request asks. */
export const MAX_OUTPUT_TOKENS = 4096;

const WORDS = [
  " lorem", " ipsum", " dolor", " sit", " amet", " consectetur", " adipiscing", " elit",
  " sed", " do", " eiusmod", " tempor", " incididunt", " ut", " labore", " et",
] as const;

/** Text split into stream deltas, with each piece already JSON-encoded. */
export interface MockText {
  /** The whole output text. */
  readonly text: string;
  /** `JSON.stringify(text)`. */
  readonly textJson: string;
  /** `JSON.stringify` of each delta; the deltas concatenate to `text`. */
  readonly deltaJson: readonly string[];
}

const CACHE_LIMIT = 256;
const cache = new Map<string, MockText>();

/** Input tokens estimated from the request body size: ceil(bytes / 4), at least 1. */
export function estimateInputTokens(byteLength: number): number {
  return Math.max(1, Math.ceil(byteLength / 4));
}

/**
 * Output tokens for a request body: `max_tokens`, `max_completion_tokens` or
 * `max_output_tokens`, else {@link DEFAULT_OUTPUT_TOKENS}; clamped to 1..{@link MAX_OUTPUT_TOKENS}.
 */
export function outputTokensFor(body: Readonly<Record<string, unknown>>): number {
  const limit = body["max_completion_tokens"] ?? body["max_tokens"] ?? body["max_output_tokens"];
  if (typeof limit !== "number" || !Number.isFinite(limit)) return DEFAULT_OUTPUT_TOKENS;
  return Math.min(MAX_OUTPUT_TOKENS, Math.max(1, Math.floor(limit)));
}

/** The mock output of `tokens` words split into at most `chunks` deltas (cached). */
export function mockText(tokens: number, chunks: number): MockText {
  const key = `${tokens}:${chunks}`;
  const cached = cache.get(key);
  if (cached) return cached;
  const pieces = Math.max(1, Math.min(chunks, tokens));
  const base = Math.floor(tokens / pieces);
  const extra = tokens % pieces;
  const deltas: string[] = [];
  let word = 0;
  for (let piece = 0; piece < pieces; piece++) {
    const count = base + (piece < extra ? 1 : 0);
    let delta = "";
    for (let i = 0; i < count; i++) delta += WORDS[word++ % WORDS.length];
    deltas.push(delta);
  }
  const text = deltas.join("");
  const value: MockText = { text, textJson: JSON.stringify(text), deltaJson: deltas.map((d) => JSON.stringify(d)) };
  if (cache.size >= CACHE_LIMIT) cache.clear();
  cache.set(key, value);
  return value;
}
