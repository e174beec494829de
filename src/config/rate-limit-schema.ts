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
 * `concurrent` caps calls in flight. Kept in memory, per relay instance.
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
