import { sql, type CompiledQuery, type Kysely, type RawBuilder, type Selectable } from "kysely";
import { BIN_COUNT, binCounts, binIndex, OVERHEAD_MS, TOTAL_MS } from "./latency-bins.ts";
import { precompile, precompileKeyed, type Precompiled } from "../statements/precompiled-query.ts";
import type { Database, JournalEntryTable } from "../store-schema.ts";
import type { RunQuery } from "../statements/store-transaction.ts";

/**
 * The hourly usage rollup (table usage_hour, schema 7): per UTC hour of received_at and per
 * (key, project, model, provider, route), the finished entries' calls, ok, refused, errors,
 * tokens, cost, newest received_at and the two latency histograms (total time, relay overhead)
 * of latency-bins.ts. Entries still `started` are not in it (the dashboard counts them from
 * the journal), so a call enters the rollup once, when it is finished or refused.
 *
 * Every transaction that writes journal entries collects what it changed in a
 * {@link RollupDeltas} (one per hour and group, however many entries) and applies it with
 * {@link applyRollup} before committing: admissions (refusals), completions, the admission-log
 * applier, recovery, reconciliation and retention. So the rollup is exactly the sum of the
 * journal's finished entries, in every committed state.
 *
 * Dimension columns hold the value prefixed with `=`, or '' for none (NULL cannot be part of
 * the key on PostgreSQL, and '' is a value of its own).
 */

export const HOUR_MS = 3_600_000;

/** The dimension columns, as the journal names them. */
export const ROLLUP_DIMENSIONS = ["key_id", "project", "model", "provider", "route"] as const;
type Dimension = (typeof ROLLUP_DIMENSIONS)[number];
/** The summed columns besides the histograms. */
export const ROLLUP_SUMS = ["calls", "ok", "refused", "errors", "input_tokens", "cached_input_tokens", "output_tokens", "cost"] as const;
export const TOTAL_BIN_COLUMNS = Array.from({ length: BIN_COUNT }, (_, i) => `t${i}` as const);
export const OVERHEAD_BIN_COLUMNS = Array.from({ length: BIN_COUNT }, (_, i) => `o${i}` as const);
const BIN_COLUMNS = [...TOTAL_BIN_COLUMNS, ...OVERHEAD_BIN_COLUMNS];
const KEY_COLUMNS = ["hour", ...ROLLUP_DIMENSIONS] as const;

/** The journal columns an entry's part of the rollup depends on. */
export const ROLLUP_ENTRY_COLUMNS = [
  "received_at", "key_id", "project", "model", "provider", "route", "outcome", "total_ms", "upstream_ms",
  "input_tokens", "cached_input_tokens", "output_tokens", "cost",
] as const satisfies ReadonlyArray<keyof JournalEntryTable>;
/** An entry as the rollup sees it (PostgreSQL returns bigints as strings). */
export type RollupEntry = { [C in (typeof ROLLUP_ENTRY_COLUMNS)[number]]?: Selectable<JournalEntryTable>[C] | string | null };

/** The dimension value as stored in the rollup, in SQL. */
export const encodedDimension = (column: Dimension): RawBuilder<string> => sql<string>`coalesce('=' || ${sql.ref(column)}, '')`;
/** The dimension value as stored in the rollup, in JS. */
const encode = (value: unknown): string => (value === null || value === undefined ? "" : `=${String(value)}`);
/** The journal's value of a stored dimension. */
export const decodeDimension = (stored: string): string | null => (stored === "" ? null : stored.slice(1));

/** One row's change: an hour and group, its sums, newest received_at and histogram counts. */
interface HourDelta {
  hour: number;
  dims: string[];
  sums: number[];
  lastAt: number;
  bins: number[];
}

/** What a transaction changed in the rollup, per hour and group. */
export type RollupDeltas = Map<string, HourDelta>;

export const newRollupDeltas = (): RollupDeltas => new Map();

function deltaOf(deltas: RollupDeltas, entry: RollupEntry): HourDelta {
  const hour = Math.floor(Number(entry.received_at) / HOUR_MS) * HOUR_MS;
  const dims = ROLLUP_DIMENSIONS.map((d) => encode(entry[d]));
  const key = `${hour}\u0000${dims.join("\u0000")}`;
  let delta = deltas.get(key);
  if (delta === undefined) {
    delta = { hour, dims, sums: new Array<number>(ROLLUP_SUMS.length).fill(0), lastAt: -1, bins: new Array<number>(2 * BIN_COUNT).fill(0) };
    deltas.set(key, delta);
  }
  return delta;
}

const num = (value: unknown): number => (value === null || value === undefined ? 0 : Number(value));

/**
 * Adds (sign 1) or takes away (sign -1: the entry is deleted, or about to change) a finished
 * entry's part; a `started` entry has none. Counted as the dashboard's raw-entry SQL counts it.
 */
export function addToRollup(deltas: RollupDeltas, entry: RollupEntry, sign: 1 | -1 = 1): void {
  const outcome = entry.outcome;
  if (outcome === "started" || outcome === undefined) return;
  const d = deltaOf(deltas, entry);
  const s = d.sums;
  s[0]! += sign;
  if (outcome === "ok") s[1]! += sign;
  else if (outcome === "refused") s[2]! += sign;
  else s[3]! += sign;
  s[4]! += sign * num(entry.input_tokens);
  s[5]! += sign * num(entry.cached_input_tokens);
  s[6]! += sign * num(entry.output_tokens);
  s[7]! += sign * num(entry.cost);
  if (sign > 0) d.lastAt = Math.max(d.lastAt, Number(entry.received_at));
  if (entry.total_ms === null || entry.total_ms === undefined) return;
  const total = Number(entry.total_ms);
  d.bins[binIndex(total)]! += sign;
  if (entry.upstream_ms !== null && entry.upstream_ms !== undefined) d.bins[BIN_COUNT + binIndex(total - Number(entry.upstream_ms))]! += sign;
}

/** Adds `cost` to an entry's part, nothing else changing (reconciliation settles an interrupted entry). */
export function addCostToRollup(deltas: RollupDeltas, entry: RollupEntry, cost: number): void {
  deltaOf(deltas, entry).sums[7]! += cost;
}

/** Rows per upsert statement: a few compiled statements serve any number of groups. */
const CHUNK_SIZES = [32, 8, 1] as const;
const ROW_COLUMNS = [...KEY_COLUMNS, ...ROLLUP_SUMS, "last_at", ...BIN_COLUMNS] as const;

/** The rollup's statements, compiled once per store (see hot-statements.ts). */
export interface RollupStatements {
  /** Adds `rows` (distinct hours and groups) to their rows, creating missing ones. */
  upsert(rows: readonly HourDelta[]): CompiledQuery;
  /** An entry open for a late completion (reconcile pending), as the rollup sees it; locked where rows lock. */
  readonly pendingEntry: Precompiled<"id">;
}

export function createRollupStatements(db: Kysely<Database>, lockRows: boolean): RollupStatements {
  const upserts = new Map<number, (valueOf: (slot: { row: number; column: number }) => unknown) => CompiledQuery>();
  const upsertFor = (count: number) => {
    let statement = upserts.get(count);
    if (statement === undefined) {
      statement = precompileKeyed<string, { row: number; column: number }>(
        (param) =>
          db
            .insertInto("usage_hour")
            .values(Array.from({ length: count }, (_, row) => Object.fromEntries(ROW_COLUMNS.map((c, column) => [c, param(`${row}:${column}`)]))) as never)
            .onConflict((oc) =>
              oc.columns([...KEY_COLUMNS]).doUpdateSet({
                ...Object.fromEntries([...ROLLUP_SUMS, ...BIN_COLUMNS].map((c) => [c, sql`${sql.ref(`usage_hour.${c}`)} + ${sql.ref(`excluded.${c}`)}`])),
                last_at: sql`case when excluded.last_at > usage_hour.last_at then excluded.last_at else usage_hour.last_at end`,
              } as never),
            ),
        (name) => {
          const colon = name.indexOf(":");
          return { row: Number(name.slice(0, colon)), column: Number(name.slice(colon + 1)) };
        },
      );
      upserts.set(count, statement);
    }
    return statement;
  };
  const dimsAt = KEY_COLUMNS.length;
  const sumsAt = dimsAt + ROLLUP_SUMS.length;
  return {
    upsert: (rows) =>
      upsertFor(rows.length)(({ row, column }) => {
        const d = rows[row]!;
        if (column === 0) return d.hour;
        if (column < dimsAt) return d.dims[column - 1];
        if (column < sumsAt) return d.sums[column - dimsAt];
        if (column === sumsAt) return d.lastAt;
        return d.bins[column - sumsAt - 1];
      }),
    pendingEntry: precompile((param) => {
      const select = db.selectFrom("journal_entry").select([...ROLLUP_ENTRY_COLUMNS]).where("id", "=", param("id")).where("reconcile", "=", "pending");
      return lockRows ? select.forUpdate() : select;
    }),
  };
}

/** Writes `deltas` to the rollup (in the caller's transaction): one row per hour and group, in key order. */
export async function applyRollup(run: RunQuery, statements: RollupStatements, deltas: RollupDeltas): Promise<void> {
  if (deltas.size === 0) return;
  // A fixed order, so concurrent PostgreSQL transactions lock shared rows the same way round.
  const rows = [...deltas.entries()].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)).map(([, d]) => d);
  let at = 0;
  for (const size of CHUNK_SIZES) {
    for (; rows.length - at >= size; at += size) await run(statements.upsert(rows.slice(at, at + size)));
  }
  deltas.clear();
}

/**
 * After entries were deleted (retention): drops the rows of `deltas`' hours left with no call,
 * and sets the newest received_at of those still holding calls from the journal (a deleted
 * entry may have been the newest).
 */
export async function afterRollupDeletes(db: Kysely<Database>, deltas: RollupDeltas): Promise<void> {
  const touched = [...deltas.values()];
  if (touched.length === 0) return;
  const hours = touched.map((d) => d.hour);
  const [first, last] = [Math.min(...hours), Math.max(...hours)];
  await db.deleteFrom("usage_hour").where("hour", ">=", first).where("hour", "<=", last).where("calls", "<=", 0).execute();
  for (const d of touched) {
    const newest = db
      .selectFrom("journal_entry")
      .select(sql<number>`max(received_at)`.as("at"))
      .where("received_at", ">=", d.hour)
      .where("received_at", "<", d.hour + HOUR_MS)
      .where("outcome", "<>", "started")
      .where(sql<boolean>`${sql.join(ROLLUP_DIMENSIONS.map((c) => sql`${encodedDimension(c)} = ${sql.ref(`usage_hour.${c}`)}`), sql` and `)}`);
    await db
      .updateTable("usage_hour")
      .set({ last_at: sql<number>`coalesce((${newest}), -1)` })
      .where("hour", "=", d.hour)
      .where((eb) => eb.and(ROLLUP_DIMENSIONS.map((c, i) => eb(c, "=", d.dims[i]!))))
      .execute();
  }
}

/**
 * Rebuilds the rollup of the entries received in [since, until) (whole hours) from the journal:
 * the migration's backfill of an upgraded store, and tools that fill the journal directly.
 */
export async function rebuildRollup(db: Kysely<Database>, since = 0, until = Number.MAX_SAFE_INTEGER): Promise<void> {
  await db.deleteFrom("usage_hour").where("hour", ">=", since).where("hour", "<", until).execute();
  const hour = sql`(received_at / ${sql.lit(HOUR_MS)}) * ${sql.lit(HOUR_MS)}`;
  await sql`
    insert into usage_hour (${sql.join(ROW_COLUMNS.map((c) => sql.ref(c)))})
    select ${hour}, ${sql.join(ROLLUP_DIMENSIONS.map((c) => encodedDimension(c)))}, count(*),
      sum(case when outcome = 'ok' then 1 else 0 end), sum(case when outcome = 'refused' then 1 else 0 end),
      sum(case when outcome <> 'ok' and outcome <> 'refused' then 1 else 0 end),
      coalesce(sum(input_tokens), 0), coalesce(sum(cached_input_tokens), 0), coalesce(sum(output_tokens), 0),
      coalesce(sum(cost), 0), max(received_at),
      ${sql.join([...binCounts(TOTAL_MS, TOTAL_BIN_COLUMNS), ...binCounts(OVERHEAD_MS, OVERHEAD_BIN_COLUMNS)])}
    from journal_entry
    where outcome <> 'started' and received_at >= ${since} and received_at < ${until}
    group by ${sql.join(KEY_COLUMNS.map((_, i) => sql.lit(i + 1)))}`.execute(db);
}
