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
  weight: z.number().finite().positive("must be greater than 0").default(1),
  /**
   * Group: the highest group with a usable target is used first; lower groups only when it has
   * none. Default: 0 in the object form's `targets` (one group); in a plain list, by position
   * (the first highest: an ordered failover).
   */
  priority: z.number().int().optional(),
  /** This target's connect timeout (ms); default: the model's, else the provider's. */
  connectTimeoutMs: positiveInt.optional(),
  /** This target's first-byte timeout (ms); default: the model's, else the provider's. */
  firstByteTimeoutMs: positiveInt.optional(),
};

/** How a model's calls are retried; every field defaults to `routing.retry`. */
const retryFields = {
  /** Attempts on this model's targets (the first one included); default: one per target. */
  maxAttempts: positiveInt.max(20).optional(),
  /** Backoff before trying a target again: this, doubled per retry, with jitter (ms). */
  backoffMs: positiveInt.optional(),
  /** Upper bound of that backoff (ms). */
  maxBackoffMs: positiveInt.optional(),
  /** A provider's `retry-after` / `retry-after-ms` up to this is waited for; a longer one ends retries on that target (ms). */
  maxRetryAfterMs: z.number().int().nonnegative().optional(),
  /**
   * Attempts after ones that may have been billed (timeout, reset after sending) the
   * reservation makes room for: it is 1 + this many times one attempt's. Under a strict budget
   * such an attempt is retried only while the reservation covers it.
   */
  billedRetries: z.number().int().nonnegative().max(10).optional(),
};

/** The object form of a model entry: several targets plus how calls move between them. */
export function routedModelSchema<T extends z.ZodType>(target: T) {
  return z.strictObject({
    /** The deployments serving the model (at most 31). */
    targets: z.array(target).min(1).max(31),
    /** Public model names tried in order once this model's targets are exhausted (same wire format). */
    fallbacks: z.array(nameText()).default([]),
    /** A public model name tried when a provider answers that the prompt is too long for its context window. */
    contextFallback: nameText().optional(),
    /** `weighted`: weighted random inside the priority group; `least-busy`: the target with the fewest calls in flight (weighted among ties). */
    strategy: z.enum(["weighted", "least-busy"]).default("weighted"),
    retry: z.strictObject(retryFields).optional(),
    /** The call's total deadline, retries and backoff included (ms); default `routing.timeoutMs`. */
    timeoutMs: positiveInt.optional(),
    /** Default connect timeout of this model's targets (ms). */
    connectTimeoutMs: positiveInt.optional(),
    /** Default first-byte timeout of this model's targets (ms). */
    firstByteTimeoutMs: positiveInt.optional(),
  });
}

/** The top-level `routing` section. */
export const routingSchema = z
  .strictObject({
    retry: z
      .strictObject({
        maxAttempts: retryFields.maxAttempts,
        backoffMs: positiveInt.default(100),
        maxBackoffMs: positiveInt.default(2000),
        maxRetryAfterMs: z.number().int().nonnegative().default(5000),
        billedRetries: z.number().int().nonnegative().max(10).default(0),
      })
      .prefault({}),
    /** A target failing `failures` times within `windowMs` is skipped for `cooldownMs`, then probed by one call. */
    cooldown: z
      .strictObject({
        failures: positiveInt.default(5),
        windowMs: positiveInt.default(60_000),
        cooldownMs: positiveInt.default(30_000),
      })
      .prefault({}),
    /**
     * The longest silence in a streamed answer (ms): from its head to its first chunk, between two
     * chunks, or while the client takes none. Longer, the stream is ended (outcome `timeout`).
     */
    chunkTimeoutMs: positiveInt.default(300_000),
    /** The total deadline of a call, retries included (ms), for models that set none. */
    timeoutMs: positiveInt.default(600_000),
    /** The most a client may ask for with `x-renio-timeout-ms` (larger values are capped to it). */
    maxRequestTimeoutMs: positiveInt.default(600_000),
  })
  .prefault({});

/** The `routing` section, defaults applied. */
export type RoutingConfig = z.infer<typeof routingSchema>;
