import { sql, type Kysely, type RawBuilder } from "kysely";
import type { Database } from "./store-schema.ts";
import type { UsageBucket, UsageGroup, UsageGroupBy, UsageRange, UsageSeriesQuery } from "./store.ts";

/**
 * Aggregates of the journal for the dashboard, computed in SQL over a received_at range
 * (the journal_entry_time index) in one pass: totals per group, and per time bucket. Latency
 * percentiles come from a histogram counted in the same pass (fixed bins, the same on SQLite
 * and PostgreSQL) and interpolated within the bin, as Prometheus' histogram_quantile does.
 */

const GROUP_COLUMNS: Record<UsageGroupBy, string> = { key: "key_id", project: "project", model: "model", provider: "provider", route: "route" };

/** Upper bounds of the latency histogram's bins, in ms (a 1-1.5-2-3-5-7 series from 0.01 ms to 10 min). */
export const LATENCY_BINS: readonly number[] = (() => {
  const bounds: number[] = [];
  for (let decade = 0.01; decade < 1_000_000; decade *= 10) {
    for (const step of [1, 1.5, 2, 3, 5, 7]) bounds.push(Number((decade * step).toPrecision(3)));
  }
  return bounds.filter((b) => b <= 600_000);
})();

/**
 * The bin index of `expr` (LATENCY_BINS.length when above the last bound): nested `CASE`s
 * searching the bounds by halves, so a row evaluates `expr` about 6 times rather than once
 * per bin.
 */
function binOf(expr: RawBuilder<unknown>, lo = 0, hi = LATENCY_BINS.length): RawBuilder<number> {
  if (lo === hi) return sql<number>`${sql.lit(lo)}`;
  const mid = Math.floor((lo + hi) / 2);
  return sql<number>`case when ${expr} <= ${sql.lit(LATENCY_BINS[mid]!)} then ${binOf(expr, lo, mid)} else ${binOf(expr, mid + 1, hi)} end`;
}

const ERROR = sql`(outcome <> 'ok' and outcome <> 'started' and outcome <> 'refused')`;
const NO_BIN = sql`-1`;
const TOTAL_BIN = sql`case when total_ms is null then -1 else ${binOf(sql`total_ms`)} end`;
const OVERHEAD_BIN = sql`case when total_ms is null or upstream_ms is null then -1 else ${binOf(sql`(total_ms - upstream_ms)`)} end`;

/** Counts, tokens, cost and latency (p50/p95 of total time and of relay overhead) per group. */
export async function usageByGroup(db: Kysely<Database>, range: UsageRange, by: UsageGroupBy | undefined, latency = true): Promise<UsageGroup[]> {
  const group = by === undefined ? sql`null` : sql.ref(GROUP_COLUMNS[by]);
  const groups = await scan(db, range, group, latency ? TOTAL_BIN : NO_BIN, latency ? OVERHEAD_BIN : NO_BIN);
  return [...groups.values()]
    .map(({ key, totals, totalBins, overheadBins }) => ({
      group: key,
      ...totals,
      totalMsP50: quantile(totalBins, 0.5),
      totalMsP95: quantile(totalBins, 0.95),
      overheadMsP50: quantile(overheadBins, 0.5),
      overheadMsP95: quantile(overheadBins, 0.95),
    }))
    .sort((a, b) => b.calls - a.calls);
}

/** Calls, errors, cost and overhead p50/p95 per time bucket (epoch ms, multiples of `bucketMs`). */
export async function usageSeries(db: Kysely<Database>, query: UsageSeriesQuery): Promise<UsageBucket[]> {
  const bucket = sql`(received_at / ${sql.lit(query.bucketMs)}) * ${sql.lit(query.bucketMs)}`;
  const buckets = await scan(db, query, bucket, NO_BIN, OVERHEAD_BIN);
  return [...buckets.values()]
    .map(({ key, totals, overheadBins }) => ({
      at: Number(key),
      calls: totals.calls,
      errors: totals.errors,
      refused: totals.refused,
      cost: totals.cost,
      overheadMsP50: quantile(overheadBins, 0.5),
      overheadMsP95: quantile(overheadBins, 0.95),
    }))
    .sort((a, b) => a.at - b.at);
}

type Totals = Omit<UsageGroup, "group" | "totalMsP50" | "totalMsP95" | "overheadMsP50" | "overheadMsP95">;

interface Scanned {
  key: string | null;
  totals: Totals;
  totalBins: number[];
  overheadBins: number[];
}

interface ScanRow {
  grp: unknown;
  tbin: number | string;
  obin: number | string;
  calls: number | string;
  ok: number | string;
  refused: number | string;
  errors: number | string;
  in_flight: number | string;
  input_tokens: number | string;
  cached_input_tokens: number | string;
  output_tokens: number | string;
  cost: number | string;
  last_at: number | string | null;
}

/**
 * One pass over the entries received in `range`: totals per (group, total-time bin,
 * overhead bin), summed here into one total and two histograms per group (a bin of -1: no
 * such time; NO_BIN skips a histogram).
 */
async function scan(db: Kysely<Database>, range: UsageRange, group: RawBuilder<unknown>, totalBin: RawBuilder<unknown>, overheadBin: RawBuilder<unknown>): Promise<Map<string | null, Scanned>> {
  const { rows } = await sql<ScanRow>`
    select ${group} as grp, ${totalBin} as tbin, ${overheadBin} as obin, count(*) as calls,
      sum(case when outcome = 'ok' then 1 else 0 end) as ok,
      sum(case when outcome = 'refused' then 1 else 0 end) as refused,
      sum(case when ${ERROR} then 1 else 0 end) as errors,
      sum(case when outcome = 'started' then 1 else 0 end) as in_flight,
      coalesce(sum(input_tokens), 0) as input_tokens,
      coalesce(sum(cached_input_tokens), 0) as cached_input_tokens,
      coalesce(sum(output_tokens), 0) as output_tokens,
      coalesce(sum(cost), 0) as cost,
      max(received_at) as last_at
    from journal_entry where received_at >= ${range.since} and received_at < ${range.until}
    group by 1, 2, 3`.execute(db);
  const groups = new Map<string | null, Scanned>();
  for (const row of rows) {
    const key = row.grp === null ? null : String(row.grp);
    let scanned = groups.get(key);
    if (scanned === undefined) {
      const totals: Totals = { calls: 0, ok: 0, refused: 0, errors: 0, inFlight: 0, inputTokens: 0, cachedInputTokens: 0, outputTokens: 0, cost: 0, lastAt: null };
      const bins = () => new Array<number>(LATENCY_BINS.length + 1).fill(0);
      groups.set(key, (scanned = { key, totals, totalBins: bins(), overheadBins: bins() }));
    }
    const t = scanned.totals;
    const calls = Number(row.calls);
    t.calls += calls;
    t.ok += Number(row.ok);
    t.refused += Number(row.refused);
    t.errors += Number(row.errors);
    t.inFlight += Number(row.in_flight);
    t.inputTokens += Number(row.input_tokens);
    t.cachedInputTokens += Number(row.cached_input_tokens);
    t.outputTokens += Number(row.output_tokens);
    t.cost += Number(row.cost);
    if (row.last_at !== null) t.lastAt = Math.max(t.lastAt ?? 0, Number(row.last_at));
    if (Number(row.tbin) >= 0) scanned.totalBins[Number(row.tbin)]! += calls;
    if (Number(row.obin) >= 0) scanned.overheadBins[Number(row.obin)]! += calls;
  }
  return groups;
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
