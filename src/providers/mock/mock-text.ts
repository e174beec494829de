/**
 * Deterministic mock text and token arithmetic: one word is one token, and
 * stream deltas are cached per (answer, tokens, chunks) so requests share them.
 */
import type { MockAnswer } from "../../config/mock-schema.ts";

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

const SENTENCE = [
  "Hello", " from", " the", " Renio", " mock", " provider.", " Point", " a", " model", " at", " a", " real",
  " provider", " in", " your", " config", " for", " real", " answers.",
] as const;

const CACHE_LIMIT = 256;
const cache = new Map<string, MockText>();

/** Input tokens estimated from the request body size: ceil(bytes / 4), at least 1. */
export function estimateInputTokens(byteLength: number): number {
  return Math.max(1, Math.ceil(byteLength / 4));
}

/**
 * Output tokens for a request body under `answer`. The limit is `max_tokens`,
 * `max_completion_tokens` or `max_output_tokens`, clamped to 1..{@link MAX_OUTPUT_TOKENS}.
 * `fill`: the limit, else {@link DEFAULT_OUTPUT_TOKENS}; `sentence`: the sentence's words, or
 * the limit when that is lower.
 */
export function outputTokensFor(body: Readonly<Record<string, unknown>>, answer: MockAnswer = "fill"): number {
  const value = body["max_completion_tokens"] ?? body["max_tokens"] ?? body["max_output_tokens"];
  const limit = typeof value === "number" && Number.isFinite(value) ? Math.min(MAX_OUTPUT_TOKENS, Math.max(1, Math.floor(value))) : undefined;
  if (answer === "sentence") return Math.min(limit ?? SENTENCE.length, SENTENCE.length);
  return limit ?? DEFAULT_OUTPUT_TOKENS;
}

/** The mock output of `tokens` words (of the sentence, or filler) split into at most `chunks` deltas (cached). */
export function mockText(tokens: number, chunks: number, answer: MockAnswer = "fill"): MockText {
  const words: readonly string[] = answer === "sentence" ? SENTENCE : WORDS;
  const key = `${answer}:${tokens}:${chunks}`;
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
    for (let i = 0; i < count; i++) delta += words[word++ % words.length];
    deltas.push(delta);
  }
  const text = deltas.join("");
  const value: MockText = { text, textJson: JSON.stringify(text), deltaJson: deltas.map((d) => JSON.stringify(d)) };
  if (cache.size >= CACHE_LIMIT) cache.clear();
  cache.set(key, value);
  return value;
}
