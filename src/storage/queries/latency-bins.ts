import { sql, type RawBuilder } from "kysely";

/**
 * The fixed latency histogram of the dashboard's aggregates, the same in SQL (raw entries,
 * {@link binCounts}), in JS (the hourly rollup's updates, {@link binIndex}) and on both backends: percentiles come from summed bins,
 * interpolated within the bin as Prometheus' histogram_quantile does.
 */

/** Upper bounds of the latency histogram's bins, in ms (a 1-1.5-2-3-5-7 series from 0.01 ms to 10 min). */
export const LATENCY_BINS: readonly number[] = (() => {
  const bounds: number[] = [];
  for (let decade = 0.01; decade < 1_000_000; decade *= 10) {
    for (const step of [1, 1.5, 2, 3, 5, 7]) bounds.push(Number((decade * step).toPrecision(3)));
  }
  return bounds.filter((b) => b <= 600_000);
})();

/** Slots of a histogram: one per bound, plus one above the last. */
export const BIN_COUNT = LATENCY_BINS.length + 1;

/** The bin index of `ms`: the first bin whose upper bound it does not exceed (LATENCY_BINS.length above them all), as {@link binCounts} counts it in SQL. */
export function binIndex(ms: number, lo = 0, hi = LATENCY_BINS.length): number {
  while (lo < hi) {
    const mid = Math.floor((lo + hi) / 2);
    if (ms <= LATENCY_BINS[mid]!) hi = mid;
    else lo = mid + 1;
  }
  return lo;
}

/** The q-quantile of a histogram over LATENCY_BINS, interpolated linearly within its bin. */
export function quantile(counts: readonly number[], q: number): number | null {
  const total = counts.reduce((a, b) => a + b, 0);
  if (total === 0) return null;
  const rank = q * total;
  let seen = 0;
  for (let i = 0; i < counts.length; i++) {
    const n = counts[i]!;
    if (n > 0 && seen + n >= rank) {
      const lower = i === 0 ? 0 : LATENCY_BINS[i - 1]!;
      const upper = LATENCY_BINS[i] ?? lower;
      return lower + (upper - lower) * ((rank - seen) / n);
    }
    seen += n;
  }
  return LATENCY_BINS[LATENCY_BINS.length - 1]!;
}

/**
 * One `sum(...) as <column>` per bin: how many rows have `value` in that bin (a null value in
 * none). Two comparisons per bin and row, no nested expression: cheap in a wide aggregate.
 */
export function binCounts(value: RawBuilder<unknown>, columns: readonly string[]): RawBuilder<unknown>[] {
  return columns.map((column, i) => {
    const lower = i === 0 ? null : LATENCY_BINS[i - 1]!;
    const upper = i < LATENCY_BINS.length ? LATENCY_BINS[i]! : null;
    const inBin =
      lower === null ? sql`${value} <= ${sql.lit(upper)}` : upper === null ? sql`${value} > ${sql.lit(lower)}` : sql`${value} > ${sql.lit(lower)} and ${value} <= ${sql.lit(upper)}`;
    return sql`sum(case when ${inBin} then 1 else 0 end) as ${sql.ref(column)}`;
  });
}

/** A journal row's total time, and its relay overhead (total minus upstream time), in SQL (null when missing). */
export const TOTAL_MS = sql`total_ms`;
export const OVERHEAD_MS = sql`(total_ms - upstream_ms)`;
