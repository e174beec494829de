/** Summary of one target's latency samples at one point (milliseconds). */
export interface LatencySummary {
  readonly samples: number;
  readonly errors: number;
  readonly min: number;
  readonly median: number;
  readonly p95: number;
  readonly p99: number;
  readonly max: number;
  readonly mean: number;
}

/**
 * The q-quantile (0 ≤ q ≤ 1) of ascending-sorted samples, linearly interpolated
 * between closest ranks (the common "type 7" definition). NaN for no samples.
 */
export function quantileSorted(sorted: ArrayLike<number>, q: number): number {
  const n = sorted.length;
  if (n === 0) return Number.NaN;
  if (q <= 0) return sorted[0]!;
  if (q >= 1) return sorted[n - 1]!;
  const rank = (n - 1) * q;
  const low = Math.floor(rank);
  const high = Math.min(low + 1, n - 1);
  const weight = rank - low;
  return sorted[low]! + (sorted[high]! - sorted[low]!) * weight;
}

/** Summarizes latency samples (not modified; a sorted copy is made). */
export function summarize(samples: ArrayLike<number>, errors = 0): LatencySummary {
  const sorted = Float64Array.from(samples).sort();
  let sum = 0;
  for (const value of sorted) sum += value;
  const n = sorted.length;
  return {
    samples: n,
    errors,
    min: n === 0 ? Number.NaN : sorted[0]!,
    median: quantileSorted(sorted, 0.5),
    p95: quantileSorted(sorted, 0.95),
    p99: quantileSorted(sorted, 0.99),
    max: n === 0 ? Number.NaN : sorted[n - 1]!,
    mean: n === 0 ? Number.NaN : sum / n,
  };
}

/** Overhead of a relay over direct at the same point: median and P95 differences (ms). */
export interface Overhead {
  readonly median: number;
  readonly p95: number;
}

/** `via − direct` for the median and for the P95 (each percentile taken separately). */
export function overheadOf(direct: LatencySummary, via: LatencySummary): Overhead {
  return { median: via.median - direct.median, p95: via.p95 - direct.p95 };
}
