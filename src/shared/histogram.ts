/**
 * A fixed-bucket histogram (Prometheus style): counts per upper bound, a sum and a count.
 * Recording is a short scan over the bounds and a few array increments; no allocation.
 */
export interface Histogram {
  /** Upper bounds, ascending (the +Inf bucket is implicit). */
  readonly bounds: Float64Array;
  /** Non-cumulative counts; index bounds.length is the +Inf bucket. */
  readonly counts: Float64Array;
  sum: number;
  count: number;
}

/** Latency buckets in seconds: 0.5 ms to 60 s. */
export const SECONDS_BUCKETS: readonly number[] = [0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60];

/** A histogram over `bounds`. */
export function createHistogram(bounds: readonly number[]): Histogram {
  return { bounds: Float64Array.from(bounds), counts: new Float64Array(bounds.length + 1), sum: 0, count: 0 };
}

/** Records one value. */
export function observe(histogram: Histogram, value: number): void {
  const { bounds, counts } = histogram;
  let i = 0;
  while (i < bounds.length && value > bounds[i]!) i++;
  counts[i] = counts[i]! + 1;
  histogram.sum += value;
  histogram.count++;
}
