import { sql, type Kysely, type RawBuilder } from "kysely";
import type { Database } from "../store-schema.ts";
import { precompile, type Precompiled } from "../statements/precompiled-query.ts";
import type { UsageBucket, UsageGroup, UsageGroupBy, UsageRange, UsageSeriesQuery } from "../../journal/journal-store.ts";
import { BIN_COUNT, binCounts, OVERHEAD_MS, quantile, TOTAL_MS } from "./latency-bins.ts";
import { decodeDimension, encodedDimension, HOUR_MS, OVERHEAD_BIN_COLUMNS, ROLLUP_SUMS, TOTAL_BIN_COLUMNS } from "./store-rollup.ts";
import { amountSum } from "../money-sql.ts";
import { sumAmounts } from "../../shared/money.ts";

export { LATENCY_BINS, quantile } from "./latency-bins.ts";

/**
 * Aggregates of the journal for the dashboard, in one SQL statement (one snapshot) per
 * aggregate: the whole hours inside the range come from the hourly rollup (store-rollup.ts)
 * plus the entries of those hours still in flight (journal_entry_outcome_time index); the
 * partial hours at the range's edges from the entries themselves (journal_entry_time index).
 * Buckets that do not line up with hours, and ranges without a whole hour, are counted from
 * the entries alone. Latency percentiles come from summed histograms (latency-bins.ts).
 */

/** What the figures are grouped by: an expression over journal_entry, and the same over usage_hour. */
interface Grouping {
  /** Names the grouping in the statement cache. */
  id: string;
  entries: RawBuilder<unknown>;
  rollup: RawBuilder<unknown>;
  /** Groups are stored dimensions (decodeDimension gives the journal's value). */
  dimension: boolean;
  /** Every hour lies inside one group (the rollup can serve it). */
  hourAligned: boolean;
}

const GROUP_COLUMNS: Record<UsageGroupBy, "key_id" | "project" | "model" | "provider" | "route"> = { key: "key_id", project: "project", model: "model", provider: "provider", route: "route" };
const ALL: Grouping = { id: "all", entries: sql`null`, rollup: sql`null`, dimension: false, hourAligned: true };

/** Which histograms an aggregate needs. */
interface Histograms {
  total: boolean;
  overhead: boolean;
}

/** Counts, tokens, cost and latency (p50/p95 of total time and of relay overhead) per group. */
export async function usageByGroup(db: Kysely<Database>, range: UsageRange, by: UsageGroupBy | undefined, latency = true): Promise<UsageGroup[]> {
  const grouping: Grouping =
    by === undefined ? ALL : { id: by, entries: encodedDimension(GROUP_COLUMNS[by]), rollup: sql.ref(GROUP_COLUMNS[by]), dimension: true, hourAligned: true };
  const groups = await aggregate(db, range, grouping, { total: latency, overhead: latency });
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
  const b = sql.lit(query.bucketMs);
  const grouping: Grouping = {
    id: `bucket ${query.bucketMs}`,
    entries: sql`(received_at / ${b}) * ${b}`,
    rollup: sql`(hour / ${b}) * ${b}`,
    dimension: false,
    hourAligned: query.bucketMs % HOUR_MS === 0,
  };
  const buckets = await aggregate(db, query, grouping, { total: false, overhead: true });
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

interface Aggregated {
  key: string | null;
  totals: Totals;
  totalBins: number[];
  overheadBins: number[];
}

type Row = Record<string, unknown>;

const ERROR = sql`(outcome <> 'ok' and outcome <> 'started' and outcome <> 'refused')`;

/**
 * Totals (and requested histograms) per group of the entries matching `where`, counted from
 * the journal. `inFlight`: only entries still `started` match, which have no times (zero bins).
 */
function fromEntries(grouping: Grouping, where: RawBuilder<unknown>, histograms: Histograms, inFlight = false): RawBuilder<Row> {
  const binsOf = (value: RawBuilder<unknown>, columns: readonly string[]) =>
    inFlight ? columns.map((c) => sql`0 as ${sql.ref(c)}`) : binCounts(value, columns);
  const bins = [
    ...(histograms.total ? binsOf(TOTAL_MS, TOTAL_BIN_COLUMNS) : []),
    ...(histograms.overhead ? binsOf(OVERHEAD_MS, OVERHEAD_BIN_COLUMNS) : []),
  ];
  return sql<Row>`
    select ${grouping.entries} as grp, count(*) as calls,
      sum(case when outcome = 'ok' then 1 else 0 end) as ok,
      sum(case when outcome = 'refused' then 1 else 0 end) as refused,
      sum(case when ${ERROR} then 1 else 0 end) as errors,
      sum(case when outcome = 'started' then 1 else 0 end) as in_flight,
      coalesce(sum(input_tokens), 0) as input_tokens,
      coalesce(sum(cached_input_tokens), 0) as cached_input_tokens,
      coalesce(sum(output_tokens), 0) as output_tokens,
      ${amountSum(sql.ref("cost"))} as cost,
      max(received_at) as last_at
      ${sql.join(bins.map((b) => sql`, ${b}`), sql``)}
    from journal_entry where ${where}
    ${groupBy(grouping)}`;
}

/** The same totals of the finished entries of the whole hours [from, to), from the rollup. */
function fromRollup(grouping: Grouping, from: unknown, to: unknown, histograms: Histograms): RawBuilder<Row> {
  const bins = [...(histograms.total ? TOTAL_BIN_COLUMNS : []), ...(histograms.overhead ? OVERHEAD_BIN_COLUMNS : [])];
  return sql<Row>`
    select ${grouping.rollup} as grp, ${sql.join(ROLLUP_SUMS.slice(0, 4).map((c) => sql`sum(${sql.ref(c)}) as ${sql.ref(c)}`))}, 0 as in_flight,
      ${sql.join(ROLLUP_SUMS.slice(4).map((c) => sql`sum(${sql.ref(c)}) as ${sql.ref(c)}`))}, max(last_at) as last_at
      ${sql.join(bins.map((c) => sql`, sum(${sql.ref(c)}) as ${sql.ref(c)}`), sql``)}
    from usage_hour where hour >= ${from} and hour < ${to}
    ${groupBy(grouping)}`;
}

/** `group by` the grouping; none for all entries (one row, of zeros and nulls when nothing matches: see aggregate). */
const groupBy = (grouping: Grouping): RawBuilder<unknown> => (grouping.id === ALL.id ? sql`` : sql`group by 1`);

type Bound = "since" | "firstHour" | "lastHour" | "until";

/** Compiled aggregate statements per database and shape: building one takes Kysely longer than running it. */
const compiledFor = new WeakMap<Kysely<Database>, Map<string, Precompiled<Bound>>>();
const MAX_SHAPES = 200;

/** Totals and histograms per group of the entries received in `range`, in one statement. */
async function aggregate(db: Kysely<Database>, range: UsageRange, grouping: Grouping, histograms: Histograms): Promise<Map<string | null, Aggregated>> {
  const firstHour = Math.ceil(range.since / HOUR_MS) * HOUR_MS;
  const lastHour = Math.floor(range.until / HOUR_MS) * HOUR_MS;
  const rolled = grouping.hourAligned && firstHour < lastHour;
  const shape = [grouping.id, histograms.total, histograms.overhead, rolled, rolled && range.since < firstHour, rolled && lastHour < range.until].join(":");
  let compiled = compiledFor.get(db);
  if (compiled === undefined) compiledFor.set(db, (compiled = new Map()));
  let statement = compiled.get(shape);
  if (statement === undefined) {
    if (compiled.size >= MAX_SHAPES) compiled.clear();
    statement = precompile<Bound>((param) => {
      const inRange = (since: Bound, until: Bound): RawBuilder<unknown> => sql`received_at >= ${param(since)} and received_at < ${param(until)}`;
      const parts: RawBuilder<Row>[] = [];
      if (!rolled) {
        parts.push(fromEntries(grouping, inRange("since", "until"), histograms));
      } else {
        if (range.since < firstHour) parts.push(fromEntries(grouping, inRange("since", "firstHour"), histograms));
        if (lastHour < range.until) parts.push(fromEntries(grouping, inRange("lastHour", "until"), histograms));
        parts.push(fromEntries(grouping, sql`outcome = 'started' and ${inRange("firstHour", "lastHour")}`, histograms, true));
        parts.push(fromRollup(grouping, param("firstHour"), param("lastHour"), histograms));
      }
      const query = sql<Row>`${sql.join(parts, sql` union all `)}`;
      return { compile: () => query.compile(db) };
    });
    compiled.set(shape, statement);
  }
  const { rows } = await db.executeQuery<Row>(statement({ since: range.since, firstHour, lastHour, until: range.until }));
  const groups = new Map<string | null, Aggregated>();
  for (const row of rows) {
    if (Number(row.calls ?? 0) === 0) continue; // an ungrouped part that matched nothing
    const raw = row.grp === null || row.grp === undefined ? null : String(row.grp);
    const key = raw !== null && grouping.dimension ? decodeDimension(raw) : raw;
    let group = groups.get(key);
    if (group === undefined) {
      const totals: Totals = { calls: 0, ok: 0, refused: 0, errors: 0, inFlight: 0, inputTokens: 0, cachedInputTokens: 0, outputTokens: 0, cost: 0, lastAt: null };
      groups.set(key, (group = { key, totals, totalBins: new Array<number>(BIN_COUNT).fill(0), overheadBins: new Array<number>(BIN_COUNT).fill(0) }));
    }
    const t = group.totals;
    t.calls += Number(row.calls);
    t.ok += Number(row.ok);
    t.refused += Number(row.refused);
    t.errors += Number(row.errors);
    t.inFlight += Number(row.in_flight);
    t.inputTokens += Number(row.input_tokens);
    t.cachedInputTokens += Number(row.cached_input_tokens);
    t.outputTokens += Number(row.output_tokens);
    // The rollup's sums are doubles: each part is rounded to the billionth, and the parts added as billionths.
    t.cost = sumAmounts([t.cost, Number(row.cost)]);
    if (row.last_at !== null && Number(row.last_at) >= 0) t.lastAt = Math.max(t.lastAt ?? 0, Number(row.last_at));
    // plain-object: below, the keys are the bin column names Renio generates (t0…, o0…)
    if (histograms.total) TOTAL_BIN_COLUMNS.forEach((c, i) => (group.totalBins[i]! += Number(row[c])));
    // plain-object: the bin column names Renio generates
    if (histograms.overhead) OVERHEAD_BIN_COLUMNS.forEach((c, i) => (group.overheadBins[i]! += Number(row[c])));
  }
  return groups;
}
