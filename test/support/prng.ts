import process from "node:process";

/**
 * A small seeded pseudo-random generator (mulberry32) for property tests: the same seed gives
 * the same inputs on every runtime, so a failure is reproduced by its seed.
 */
export class Prng {
  private state: number;

  constructor(readonly seed: number) {
    this.state = seed >>> 0;
  }

  /** A float in [0, 1). */
  next(): number {
    let t = (this.state = (this.state + 0x6d2b79f5) >>> 0);
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  }

  /** An integer in [0, n). */
  int(n: number): number {
    return Math.floor(this.next() * n);
  }

  /** One of `items`. */
  pick<T>(items: readonly T[]): T {
    return items[this.int(items.length)]!;
  }

  /** True with probability `p`. */
  chance(p: number): boolean {
    return this.next() < p;
  }
}

/** The seed of a property run: `RENIO_PROPERTY_SEED` when set (a number), else one drawn now (print it). */
export function propertySeed(): number {
  const given = process.env.RENIO_PROPERTY_SEED;
  if (given !== undefined && given !== "") {
    const seed = Number(given);
    if (!Number.isInteger(seed) || seed < 0 || seed > 0xffffffff) throw new Error(`RENIO_PROPERTY_SEED must be an integer from 0 to 4294967295, got "${given}"`);
    return seed;
  }
  return Math.floor(Math.random() * 0xffffffff);
}

/** The number of inputs of a property run: `RENIO_PROPERTY_SIZE` when set, else `fallback`. */
export function propertySize(fallback: number): number {
  const given = process.env.RENIO_PROPERTY_SIZE;
  if (given === undefined || given === "") return fallback;
  const size = Number(given);
  if (!Number.isInteger(size) || size < 1 || size > 100_000) throw new Error(`RENIO_PROPERTY_SIZE must be an integer from 1 to 100000, got "${given}"`);
  return size;
}
