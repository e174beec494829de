import { z } from "zod";
import { positiveInt } from "./schema-numbers.ts";
import { nameText } from "./schema-text.ts";

/**
 * Routing settings (docs/routing.md): what a model target adds (weight, priority group,
 * timeouts), the object form of a model entry (targets, fallbacks, retries, deadline) and the
 * top-level `routing` defaults (retries, cooldowns, the deadline header's cap).
 */

/** Fields a model target adds for routing; spread into the target schema of config-schema.ts. */
export const targetRoutingFields = {
  /** Share of calls inside its priority group (relative to the other targets' weights). */
  weight: z.number().finite().positive("must be greater than 0").default(1).describe("share of calls inside the target's priority group (> 0)"),
  /**
   * Group: the highest group with a usable target is used first; lower groups only when it has
   * none. Default: 0 in the object form's `targets` (one group); in a plain list, by position
   * (the first highest: an ordered failover).
   */
  priority: z.number().int().optional().describe("the highest group with a usable target is used"),
  /** This target's connect timeout (ms); default: the model's, else the provider's. */
  connectTimeoutMs: positiveInt.optional().describe("timeouts of the model's targets"),
  /** This target's first-byte timeout (ms); default: the model's, else the provider's. */
  firstByteTimeoutMs: positiveInt.optional().describe("timeouts of the model's targets"),
};

/** How a model's calls are retried; every field defaults to `routing.retry`. */
const retryFields = {
  /** Attempts on this model's targets (the first one included); default: one per target. */
  maxAttempts: positiveInt.max(20).optional().describe("attempts on the model's own targets (1–20), the first included"),
  /** Backoff before trying a target again: this, doubled per retry, with jitter (ms). */
  backoffMs: positiveInt.optional().describe("backoff before trying a target again, doubled per retry up to the maximum, with jitter"),
  /** Upper bound of that backoff (ms). */
  maxBackoffMs: positiveInt.optional().describe("backoff before trying a target again, doubled per retry up to the maximum, with jitter"),
  /** A provider's `retry-after` / `retry-after-ms` up to this is waited for; a longer one ends retries on that target (ms). */
  maxRetryAfterMs: z.number().int().nonnegative().optional().describe("a provider's `retry-after` up to this is waited for; a longer one ends the retries on that target"),
  /**
   * Attempts after ones that may have been billed (timeout, reset after sending) the
   * reservation makes room for: it is 1 + this many times one attempt's. Under a strict budget
   * such an attempt is retried only while the reservation covers it.
   */
  billedRetries: z.number().int().nonnegative().max(10).optional().describe("extra attempts after ones that may have been billed that the reservation makes room for (0–10)"),
};

/** The object form of a model entry: several targets plus how calls move between them. */
export function routedModelSchema<T extends z.ZodType>(target: T) {
  return z.strictObject({
    /** The deployments serving the model (at most 31). */
    targets: z.array(target).min(1).max(31).describe("the object form's targets (1 to 31), each with the keys above"),
    /** Public model names tried in order once this model's targets are exhausted (same wire format). */
    fallbacks: z.array(nameText()).default([]).describe("models tried in order once the model's own attempts are used up"),
    /** A public model name tried when a provider answers that the prompt is too long for its context window. */
    contextFallback: nameText().optional().describe("the model a call moves to when the provider says the prompt does not fit"),
    /** `weighted`: weighted random inside the priority group; `least-busy`: the target with the fewest calls in flight (weighted among ties). */
    strategy: z.enum(["weighted", "least-busy"]).default("weighted").describe("`weighted` or `least-busy` (fewest attempts in flight on this relay)"),
    retry: z.strictObject(retryFields).optional().describe("this model's retries"),
    /** The call's total deadline, retries and backoff included (ms); default `routing.timeoutMs`. */
    timeoutMs: positiveInt.optional().describe("the call's total deadline"),
    /** Default connect timeout of this model's targets (ms). */
    connectTimeoutMs: positiveInt.optional().describe("timeouts of the model's targets"),
    /** Default first-byte timeout of this model's targets (ms). */
    firstByteTimeoutMs: positiveInt.optional().describe("timeouts of the model's targets"),
  });
}

/** The top-level `routing` section. */
export const routingSchema = z
  .strictObject({
    retry: z
      .strictObject({
        maxAttempts: retryFields.maxAttempts.describe("as above"),
        backoffMs: positiveInt.default(100).describe("as above"),
        maxBackoffMs: positiveInt.default(2000).describe("as above"),
        maxRetryAfterMs: z.number().int().nonnegative().default(5000).describe("as above"),
        billedRetries: z.number().int().nonnegative().max(10).default(0).describe("as above"),
      })
      .prefault({}).describe("the defaults of `models.<name>.retry`"),
    /** A target failing `failures` times within `windowMs` is skipped for `cooldownMs`, then probed by one call. */
    cooldown: z
      .strictObject({
        failures: positiveInt.default(5).describe("a target failing `failures` times within `windowMs` is skipped for `cooldownMs`"),
        windowMs: positiveInt.default(60_000).describe("a target failing `failures` times within `windowMs` is skipped for `cooldownMs`"),
        cooldownMs: positiveInt.default(30_000).describe("a target failing `failures` times within `windowMs` is skipped for `cooldownMs`"),
      })
      .prefault({}).describe("circuit breaking per target"),
    /**
     * The longest silence in a streamed answer (ms): from its head to its first chunk, between two
     * chunks, or while the client takes none. Longer, the stream is ended (outcome `timeout`).
     */
    chunkTimeoutMs: positiveInt.default(300_000).describe("the longest silence of a streamed answer; longer, Renio ends it (`upstream_stream_stalled`)"),
    /** The total deadline of a call, retries included (ms), for models that set none. */
    timeoutMs: positiveInt.default(600_000).describe("the total deadline of a call whose model sets none"),
    /** The most a client may ask for with `x-renio-timeout-ms` (larger values are capped to it). */
    maxRequestTimeoutMs: positiveInt.default(600_000).describe("the cap on a client's `x-renio-timeout-ms`"),
  })
  .prefault({});

/** The `routing` section, defaults applied. */
export type RoutingConfig = z.infer<typeof routingSchema>;
