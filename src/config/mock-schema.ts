import { z } from "zod";
import { mockScriptSchema } from "./mock-script-schema.ts";
import { durationMs, positiveInt } from "./schema-numbers.ts";
import { nameText } from "./schema-text.ts";

/** The built-in mock, run in-process (or at `baseUrl` when given); the timeouts are added by config-schema.ts. */
export const mockFields = {
  type: z.literal("mock"),
  baseUrl: z.url().optional(),
  region: nameText().default("local"),
  latencyMs: durationMs.default(2),
  chunkIntervalMs: durationMs.default(1),
  chunks: positiveInt.default(8),
  /** A fault script for tests of routing (fail the first N calls, X %, with a status or a reset). */
  faults: mockScriptSchema.optional(),
};
