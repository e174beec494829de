import { RateBucket } from "./rate-bucket.ts";

/** Calls in flight under one scope's `concurrent` limit. */
export interface RateSlots {
  inFlight: number;
}

/**
 * The rate limits' live state by scope (`key app-1`, `project data`, `model gpt-4o`): each
 * requests and tokens bucket and the calls in flight. Kept across config reloads, as the
 * targets' health is: each reload's limiter takes its scopes' state from here, so a reload never
 * hands a key a fresh minute's allowance.
 *
 * - A limit unchanged by the reload keeps its bucket as it stands.
 * - A changed one keeps the units used in the last minute, capped at the new limit, and
 *   refills at the new rate from then on: a raised limit has the difference free at once, a
 *   lowered one waits at most a full bucket's refill.
 * - Calls in flight keep counting against a scope's `concurrent`, whatever its new value.
 */
export class RateStateBook {
  private readonly buckets = new Map<string, RateBucket>();
  private readonly slots = new Map<string, RateSlots>();

  /** The `kind` bucket of `scope` at `limit` per minute (resized at `now` when its limit changed). */
  bucket(scope: string, kind: "requests" | "tokens", limit: number, now: number): RateBucket {
    const name = `${scope} ${kind}`;
    const bucket = this.buckets.get(name);
    if (bucket === undefined) {
      const created = new RateBucket(limit);
      this.buckets.set(name, created);
      return created;
    }
    if (bucket.limit !== limit) bucket.resize(limit, now);
    return bucket;
  }

  /** The calls in flight under `scope`. */
  slotsOf(scope: string): RateSlots {
    let slots = this.slots.get(scope);
    if (slots === undefined) this.slots.set(scope, (slots = { inFlight: 0 }));
    return slots;
  }
}
