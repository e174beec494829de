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
  type: z.literal("mock"),
  baseUrl: z.url().optional(),
  region: nameText().default("local"),
  latencyMs: durationMs.default(2),
  chunkIntervalMs: durationMs.default(1),
  chunks: positiveInt.default(8),
  answer: z.enum(MOCK_ANSWERS).default("sentence"),
  /** A fault script for tests of routing (fail the first N calls, X %, with a status or a reset). */
  faults: mockScriptSchema.optional(),
};
