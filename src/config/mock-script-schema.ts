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
  failFirst: z.number().int().nonnegative().optional().describe("the first N calls fail"),
  failPercent: z.number().min(0).max(100).optional().describe("X % of the calls fail, spread evenly; neither this nor `failFirst`: every call"),
  status: z.number().int().min(400).max(599).optional().describe("a failing call's status (400–599)"),
  reset: z.boolean().optional().describe("drop the connection instead"),
  promptTooLong: z.boolean().optional().describe("answer the provider's context-window error instead"),
  cutAfterChunks: z.number().int().nonnegative().optional().describe("cut the stream after N events instead (0: before its first byte)"),
  delayMs: z.number().int().nonnegative().optional().describe("wait before failing"),
  /** `retry-after` (seconds) on a failing answer. */
  retryAfter: positiveInt.optional().describe("`retry-after` (s) and `retry-after-ms` on the failing answer"),
  /** `retry-after-ms` on a failing answer. */
  retryAfterMs: positiveInt.optional().describe("`retry-after` (s) and `retry-after-ms` on the failing answer"),
});
