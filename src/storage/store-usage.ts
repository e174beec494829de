import { sql, type Kysely, type RawBuilder } from "kysely";
import type { Database } from "./store-schema.ts";
import type { UsageBucket, UsageGroup, UsageGroupBy, UsageRange, UsageSeriesQuery } from "./store.ts";

/**
 * Aggregates of the journal for the dashboard, computed in SQL over a received_at range
 * (the journal_entry_time index): totals per group, and per time bucket. Latency percentiles
 * come from a histogram counted in SQL (fixed bins, the same on SQLite and PostgreSQL) and
 * interpolated within the bin, as Prometheus' histogram_quantile does.
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
const OVERHEAD = sql`(total_ms - upstream_ms)`;

/** Counts, tokens, cost and latency (p50/p95 of total time and of relay overhead) per group. */
export async function usageByGroup(db: Kysely<Database>, range: UsageRange, by: UsageGroupBy | undefined, latency = true): Promise<UsageGroup[]> {
  const group = by === undefined ? sql`null` : sql.ref(GROUP_COLUMNS[by]);
  const inRange = sql`received_at >= ${range.since} and received_at < ${range.until}`;
  const totals = await sql<TotalsRow>`
    select ${group} as grp, count(*) as calls,
      sum(case when outcome = 'ok' then 1 else 0 end) as ok,
      sum(case when outcome = 'refused' then 1 else 0 end) as refused,
      sum(case when ${ERROR} then 1 else 0 end) as errors,
      sum(case when outcome = 'started' then 1 else 0 end) as in_flight,
      coalesce(sum(input_tokens), 0) as input_tokens,
      coalesce(sum(cached_input_tokens), 0) as cached_input_tokens,
      coalesce(sum(output_tokens), 0) as output_tokens,
      coalesce(sum(cost), 0) as cost,
      max(received_at) as last_at
    from journal_entry where ${inRange} group by 1`.execute(db);
  const none = new Map<string | null, number[]>();
  const total = latency ? await histogram(db, inRange, group, sql`total_ms`) : none;
  const overhead = latency ? await histogram(db, inRange, group, OVERHEAD, sql`upstream_ms is not null`) : none;
  return totals.rows
    .map((row) => {
      const key = row.grp === null ? null : String(row.grp);
      const totalBins = total.get(key);
      const relay = overhead.get(key);
      return {
        group: key,
        calls: Number(row.calls),
        ok: Number(row.ok),
        refused: Number(row.refused),
        errors: Number(row.errors),
        inFlight: Number(row.in_flight),
        inputTokens: Number(row.input_tokens),
        cachedInputTokens: Number(row.cached_input_tokens),
        outputTokens: Number(row.output_tokens),
        cost: Number(row.cost),
        lastAt: row.last_at === null ? null : Number(row.last_at),
        totalMsP50: totalBins ? quantile(totalBins, 0.5) : null,
        totalMsP95: totalBins ? quantile(totalBins, 0.95) : null,
        overheadMsP50: relay ? quantile(relay, 0.5) : null,
        overheadMsP95: relay ? quantile(relay, 0.95) : null,
      };
    })
    .sort((a, b) => b.calls - a.calls);
}

/** Calls, errors, cost and overhead p50/p95 per time bucket (epoch ms, multiples of `bucketMs`). */
export async function usageSeries(db: Kysely<Database>, query: UsageSeriesQuery): Promise<UsageBucket[]> {
  const bucket = sql`(received_at / ${sql.lit(query.bucketMs)}) * ${sql.lit(query.bucketMs)}`;
  const inRange = sql`received_at >= ${query.since} and received_at < ${query.until}`;
  const counts = await sql<SeriesRow>`
    select ${bucket} as grp, count(*) as calls,
      sum(case when ${ERROR} then 1 else 0 end) as errors,
      sum(case when outcome = 'refused' then 1 else 0 end) as refused,
      coalesce(sum(cost), 0) as cost
    from journal_entry where ${inRange} group by 1 order by 1`.execute(db);
  const overhead = await histogram(db, inRange, bucket, OVERHEAD, sql`upstream_ms is not null`);
  return counts.rows.map((row) => {
    const at = Number(row.grp);
    const bins = overhead.get(String(at));
    return {
      at,
      calls: Number(row.calls),
      errors: Number(row.errors),
      refused: Number(row.refused),
      cost: Number(row.cost),
      overheadMsP50: bins ? quantile(bins, 0.5) : null,
      overheadMsP95: bins ? quantile(bins, 0.95) : null,
    };
  });
}

interface TotalsRow {
  grp: unknown;
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

interface SeriesRow {
  grp: number | string;
  calls: number | string;
  errors: number | string;
  refused: number | string;
  cost: number | string;
}

/** Counts per bin of `value` (non-null rows), per group (the group as a string, or null). */
async function histogram(
  db: Kysely<Database>,
  inRange: RawBuilder<unknown>,
  group: RawBuilder<unknown>,
  value: RawBuilder<unknown>,
  also: RawBuilder<unknown> = sql`1 = 1`,
): Promise<Map<string | null, number[]>> {
  const rows = await sql<{ grp: unknown; bin: number | string; n: number | string }>`
    select ${group} as grp, ${binOf(value)} as bin, count(*) as n
    from journal_entry where ${inRange} and ${value} is not null and ${also} group by 1, 2`.execute(db);
  const groups = new Map<string | null, number[]>();
  for (const row of rows.rows) {
    const key = row.grp === null ? null : String(row.grp);
    let counts = groups.get(key);
    if (counts === undefined) groups.set(key, (counts = new Array<number>(LATENCY_BINS.length + 1).fill(0)));
    counts[Number(row.bin)]! += Number(row.n);
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
