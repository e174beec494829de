import { z } from "zod";
import { positiveInt } from "./schema-numbers.ts";
import { nameText } from "./schema-text.ts";

/** What a rate limit counts: the calls of one key, of one project's keys, or to one public model name. */
const rateLimitScope = z.union([
  z.strictObject({ key: nameText().describe("the key, project or public model limited") }),
  z.strictObject({ project: nameText().describe("the key, project or public model limited") }),
  z.strictObject({ model: nameText().describe("the key, project or public model limited") }),
]);

/**
 * A rate limit on one scope (see docs/rate-limits.md): requests and tokens per minute are
 * token buckets refilled continuously (a full minute's allowance may be used in a burst),
 * `concurrent` caps calls in flight. Kept in memory per relay, or shared in Redis (`rateLimits.store`).
 */
export const rateLimitSchema = z
  .strictObject({
    scope: rateLimitScope.describe("`{\"key\": ID}`, `{\"project\": P}` or `{\"model\": NAME}`"),
    /** Calls admitted per minute. */
    requestsPerMinute: positiveInt.optional().describe("requests per minute (token bucket)"),
    /** Input + output tokens per minute: the call's bound is reserved before it is sent and settled from the usage reported. */
    tokensPerMinute: positiveInt.optional().describe("input + output tokens per minute, reserved before the call and settled after"),
    /** Calls in flight at once. */
    concurrent: positiveInt.optional().describe("calls in flight"),
  })
  .refine((limit) => limit.requestsPerMinute !== undefined || limit.tokensPerMinute !== undefined || limit.concurrent !== undefined, {
    message: "set at least one of requestsPerMinute, tokensPerMinute, concurrent",
  });

/**
 * Where rate limits live and what a relay does when that place does not answer. The list form
 * (`rateLimits: [...]`) is the object form with `store: memory`.
 */
const rateLimitsObject = z.strictObject({
  /** `memory`: each relay counts its own calls. `redis`: every relay sharing `redis` counts against one limit. */
  store: z.enum(["memory", "redis"]).default("memory").describe("`memory` (per relay) or `redis` (shared by every relay using `redis`)"),
  /**
   * With `store: redis`, when Redis does not answer: `refuse` answers 503 (no relay admits past a
   * limit it cannot check), `local` decides in memory at this relay's share (each limit divided
   * by `relays`) until Redis answers again.
   */
  onStoreDown: z.enum(["refuse", "local"]).default("refuse").describe("with `redis`, when Redis does not answer: `refuse` (503 `rate_limit_store_unavailable`) or `local` (this relay's share)"),
  /** The relays sharing the limits: a relay's share of each limit under `onStoreDown: local`. */
  relays: positiveInt.default(1).describe("the relays sharing the limits: the share under `local` is each limit / relays"),
  /** With `store: redis`: how long a call's concurrency slot outlives a relay that stopped renewing it (ms; a killed relay's slots free within this). */
  leaseMs: positiveInt.default(30_000).describe("with `redis`: how long a stopped relay's calls in flight keep their `concurrent` slots"),
  limits: z.array(rateLimitSchema).default([]).describe("the limits (the list form is this list)"),
});

/** `rateLimits`: the list of limits, or the object naming their store. */
export const rateLimitsSchema = z
  .union([z.array(rateLimitSchema), rateLimitsObject])
  .default([])
  .transform((value) => (Array.isArray(value) ? listed(rateLimitsObject.parse({ limits: value })) : value));

/** Rate limits written as a list: their problems' paths are `rateLimits[i]`, not `rateLimits.limits[i]`. */
const LISTED = new WeakSet<object>();

/** Marks `limits` as written in the list form (kept beside the config, so the config itself writes back as it validates). */
function listed<T extends object>(limits: T): T {
  LISTED.add(limits);
  return limits;
}

/** Whether the rate limits were written as a list (`rateLimits: [...]`). */
export function writtenAsList(limits: object): boolean {
  return LISTED.has(limits);
}
