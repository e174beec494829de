import { z } from "zod";
import { mockScriptSchema } from "./mock-script-schema.ts";
import { durationMs, positiveInt } from "./schema-numbers.ts";
import { nameText } from "./schema-text.ts";

/**
 * What the mock answers: `sentence`, one short sentence (cut to the request's output limit when
 * that is lower), as a model answering "Hello" would; `fill`, exactly the request's output limit
 * in filler words, for benchmarks and tests that need answers of a known length.
 */
export const MOCK_ANSWERS = ["sentence", "fill"] as const;
/** One of {@link MOCK_ANSWERS}. */
export type MockAnswer = (typeof MOCK_ANSWERS)[number];

/** The built-in mock, run in-process (or at `baseUrl` when given); the timeouts are added by config-schema.ts. */
export const mockFields = {
  type: z.literal("mock").describe("`openai` (any OpenAI-compatible `baseUrl`), `anthropic`, `azure`, `gemini`, `bedrock` or `mock`"),
  baseUrl: z.url().optional().describe("the provider's URL (`openai`: including `/v1`; `azure`: the resource endpoint; `mock`: a `renio mock`)"),
  region: nameText().default("local").describe("the region label keys' `regions` match; must not contradict the region the URL or location names"),
  latencyMs: durationMs.default(2).describe("`mock`: wait before the response"),
  chunkIntervalMs: durationMs.default(1).describe("`mock`: wait between stream chunks"),
  chunks: positiveInt.default(8).describe("`mock`: content deltas per stream"),
  answer: z.enum(MOCK_ANSWERS).default("sentence").describe("`mock`: `sentence` answers one short sentence (cut to a lower output limit); `fill` answers exactly the request's output limit in filler words, for benchmarks"),
  /** A fault script for tests of routing (fail the first N calls, X %, with a status or a reset). */
  faults: mockScriptSchema.optional().describe("`mock`: a fault script, which calls fail and how (routing.md)"),
};
