import { sql, type RawBuilder } from "kysely";

/**
 * The fixed latency histogram of the dashboard's aggregates, the same in SQL (raw entries),
 * in JS (the hourly rollup's updates) and on both backends: percentiles come from summed bins,
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

/**
 * The bin index of `expr` in SQL (LATENCY_BINS.length when above the last bound): nested
 * `CASE`s searching the bounds by halves, so a row evaluates `expr` about 6 times rather than
 * once per bin.
 */
export function binOf(expr: RawBuilder<unknown>, lo = 0, hi = LATENCY_BINS.length): RawBuilder<number> {
  if (lo === hi) return sql<number>`${sql.lit(lo)}`;
  const mid = Math.floor((lo + hi) / 2);
  return sql<number>`case when ${expr} <= ${sql.lit(LATENCY_BINS[mid]!)} then ${binOf(expr, lo, mid)} else ${binOf(expr, mid + 1, hi)} end`;
}

/** The bin index of `ms` in JS: the same search as {@link binOf}, so both count a value in the same bin. */
export function binIndex(ms: number, lo = 0, hi = LATENCY_BINS.length): number {
  while (lo < hi) {
    const mid = Math.floor((lo + hi) / 2);
    if (ms <= LATENCY_BINS[mid]!) hi = mid;
    else lo = mid + 1;
  }
  return lo;
}

/** Total time's bin of a journal row in SQL (-1: no total time). */
export const TOTAL_BIN = sql<number>`case when total_ms is null then -1 else ${binOf(sql`total_ms`)} end`;
/** Relay overhead's (total minus upstream time) bin of a journal row in SQL (-1: either time missing). */
export const OVERHEAD_BIN = sql<number>`case when total_ms is null or upstream_ms is null then -1 else ${binOf(sql`(total_ms - upstream_ms)`)} end`;

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
