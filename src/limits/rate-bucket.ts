/** Absorbs floating-point residue of the continuous refill, so whole counts compare exactly. */
const EPSILON = 1e-9;

/**
 * A token bucket of `limit` units, refilled continuously at `limit` per `windowMs` (the
 * generic cell rate algorithm, GCRA, kept as the units in use). A full window's allowance may be
 * spent at once; after that one unit comes back every `windowMs / limit`. State is two numbers;
 * every operation is O(1) and exact for whole units at any instant.
 */
export class RateBucket {
  /** Units taken and not yet refilled, as of `at`. */
  private used = 0;
  private at = Number.NEGATIVE_INFINITY;

  constructor(
    private units: number,
    readonly windowMs = 60_000,
  ) {}

  /** Units per window. */
  get limit(): number {
    return this.units;
  }

  /** Changes the limit at `now`: what was used stays used, capped at the new limit, and refills at the new rate. */
  resize(limit: number, now: number): void {
    this.refill(now);
    this.used = Math.min(this.used, limit);
    this.units = limit;
  }

  /** ms until `units` fit (0: now); Infinity when they never can (more than the limit). */
  waitMs(units: number, now: number): number {
    if (units > this.limit) return Number.POSITIVE_INFINITY;
    this.refill(now);
    const over = this.used + units - this.limit;
    return over <= EPSILON ? 0 : (over * this.windowMs) / this.limit;
  }

  /** Takes `units` (call after waitMs at the same instant said they fit). */
  take(units: number): void {
    this.used += units;
  }

  /** Gives back `units` taken earlier and not used (never beyond a full bucket); negative takes more. */
  give(units: number): void {
    this.used = Math.max(0, this.used - units);
  }

  /** Whole units that fit now. */
  remaining(now: number): number {
    this.refill(now);
    return Math.max(0, Math.floor(this.limit - this.used + EPSILON));
  }

  /** ms until the bucket is full again. */
  resetMs(now: number): number {
    this.refill(now);
    return this.used <= EPSILON ? 0 : (this.used * this.windowMs) / this.limit;
  }

  private refill(now: number): void {
    if (now <= this.at) return;
    if (this.used > 0) this.used = Math.max(0, this.used - ((now - this.at) * this.limit) / this.windowMs);
    this.at = now;
  }
}
