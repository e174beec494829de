import { z } from "zod";
import { positiveInt } from "./schema-numbers.ts";

/**
 * A mock provider's fault script (`providers.<id>.faults` of a `mock`): which calls fail and how.
 * A call fails when it is one of the first `failFirst`, or one of the `failPercent` % (spread
 * evenly, deterministic: every call's fate follows from its number). A failing call waits
 * `delayMs` (default: the latency), then drops the connection (`reset`), answers the
 * context-window error (`promptTooLong`), cuts its stream (`cutAfterChunks`), or answers `status`.
 */
export const mockScriptSchema = z.strictObject({
  failFirst: z.number().int().nonnegative().optional(),
  failPercent: z.number().min(0).max(100).optional(),
  status: z.number().int().min(400).max(599).optional(),
  reset: z.boolean().optional(),
  promptTooLong: z.boolean().optional(),
  cutAfterChunks: z.number().int().nonnegative().optional(),
  delayMs: z.number().int().nonnegative().optional(),
  /** `retry-after` (seconds) on a failing answer. */
  retryAfter: positiveInt.optional(),
  /** `retry-after-ms` on a failing answer. */
  retryAfterMs: positiveInt.optional(),
});
