import { sql, type Kysely, type Selectable } from "kysely";
import type { BudgetUsage } from "../../budgets/budget-usage.ts";
import type { JournalSpend } from "../../budgets/spend-report.ts";
import type { JournalAttempt, JournalEntry, JournalGuardrail } from "../../shared/journal-records.ts";
import type { JournalPage, JournalQuery, SpendRange } from "../../journal/journal-store.ts";
import { budgetUsageOf } from "../statements/store-admit.ts";
import type { Database, JournalEntryTable } from "../store-schema.ts";
import { decodePageCursor, encodePageCursor } from "./page-cursor.ts";
import type { HotStatements } from "../statements/hot-statements.ts";
import type { RunQuery } from "../statements/store-transaction.ts";
import { addToRollup, afterRollupDeletes, applyRollup, newRollupDeltas, ROLLUP_ENTRY_COLUMNS } from "./store-rollup.ts";
import { amountSum } from "../money-sql.ts";
import { fromNanos, sumAmounts, toNanos } from "../../shared/money.ts";
import { budgetKey } from "../../budgets/budget-key.ts";
import { parseReservedCharges } from "../../budgets/books-check.ts";

/** Newest-first page of journal entries, paginated by (received_at, id). */
export async function listJournal(db: Kysely<Database>, query: JournalQuery): Promise<JournalPage> {
  const limit = Math.max(1, Math.min(query.limit, 10_000));
  let q = db.selectFrom("journal_entry").selectAll();
  if (query.since !== undefined) q = q.where("received_at", ">=", query.since);
  if (query.until !== undefined) q = q.where("received_at", "<", query.until);
  if (query.keyId !== undefined) q = q.where("key_id", "=", query.keyId);
  if (query.requestId !== undefined) q = q.where("request_id", "=", query.requestId);
  if (query.id !== undefined) q = q.where("id", "=", query.id);
  if (query.outcome !== undefined) q = q.where("outcome", "=", query.outcome);
  if (query.guardrails === true) q = q.where("guardrails", "is not", null);
  const cursor = query.cursor === undefined ? null : decodePageCursor(query.cursor);
  if (cursor) {
    q = q.where((eb) =>
      eb.or([eb("received_at", "<", cursor.at), eb.and([eb("received_at", "=", cursor.at), eb("id", "<", cursor.id)])]),
    );
  }
  const rows = await q.orderBy("received_at", "desc").orderBy("id", "desc").limit(limit + 1).execute();
  const entries = rows.slice(0, limit).map(toEntry);
  const last = entries[entries.length - 1];
  return { entries, nextCursor: rows.length > limit && last ? encodePageCursor(last.receivedAt, last.id) : null };
}

/** Budget usage rows, all or only the given (budget, period) pairs. */
export async function budgetUsage(
  db: Kysely<Database>,
  keys?: ReadonlyArray<{ budgetId: string; period: string }>,
): Promise<BudgetUsage[]> {
  if (keys && keys.length === 0) return [];
  let q = db.selectFrom("budget_usage").selectAll();
  if (keys) q = q.where((eb) => eb.or(keys.map((k) => eb.and([eb("budget_id", "=", k.budgetId), eb("period", "=", k.period)]))));
  const rows = await q.orderBy("budget_id").orderBy("period").execute();
  return rows.map(budgetUsageOf);
}

const DAY_MS = 86_400_000;

/**
 * Journal sums per (UTC day, key, project, model, charged or not), in one aggregate query.
 * An interrupted entry counts as estimated at its cost once reconciled, else at its
 * reservation (still charged); a finished entry's cost is estimated when `cost_estimated`.
 */
export async function journalSpend(db: Kysely<Database>, range: SpendRange): Promise<JournalSpend[]> {
  const day = sql<number>`received_at / ${sql.lit(DAY_MS)}`;
  const charged = sql<number>`case when reserved_charges is null then 0 else 1 end`;
  const interrupted = sql`outcome = 'interrupted'`;
  const estimated = sql`(outcome = 'interrupted' or cost_estimated = 1)`;
  let q = db
    .selectFrom("journal_entry")
    .select([
      day.as("day"),
      "key_id",
      "project",
      "model",
      charged.as("charged"),
      // Forwarded: routed (a provider) and not refused. A client gone while uploading its body has neither.
      sql<number>`sum(case when outcome not in ('refused', 'cache_hit') and provider is not null then 1 else 0 end)`.as("calls"),
      sql<number>`sum(case when outcome = 'cache_hit' then 1 else 0 end)`.as("cache_hits"),
      amountSum(sql`coalesce(saved_cost, 0)`).as("saved_cost"),
      sql<number>`sum(case when outcome = 'refused' then 1 else 0 end)`.as("refused"),
      sql<number>`sum(case when outcome = 'started' then 1 else 0 end)`.as("in_flight"),
      sql<number>`coalesce(sum(input_tokens), 0)`.as("input_tokens"),
      sql<number>`coalesce(sum(cached_input_tokens), 0)`.as("cached_input_tokens"),
      sql<number>`coalesce(sum(output_tokens), 0)`.as("output_tokens"),
      amountSum(sql`case when ${estimated} or outcome = 'started' then 0 else cost end`).as("reported_cost"),
      amountSum(sql`case when ${interrupted} then coalesce(cost, reserved_cost, 0) when cost_estimated = 1 then cost else 0 end`).as("estimated_cost"),
      sql<number>`sum(case when ${estimated} then 1 else 0 end)`.as("estimated_calls"),
      amountSum(sql`case when outcome = 'started' then reserved_cost else 0 end`).as("in_flight_reserved"),
      amountSum(sql`case when outcome = 'started' then 0 else reserved_cost end`).as("reserved"),
    ]);
  if (range.since !== undefined) q = q.where("received_at", ">=", range.since);
  if (range.until !== undefined) q = q.where("received_at", "<", range.until);
  const who = range.by === "end-user" ? "end_user" : range.by === "team" ? "team" : range.by === "tag" ? "tags" : undefined;
  const rows = await (who === undefined ? q.select(sql<null>`null`.as("who")) : q.select(sql.ref<string | null>(who).as("who")))
    .groupBy(who === undefined ? [day, "key_id", "project", "model", charged] : [day, "key_id", "project", "model", charged, who])
    .execute();
  return rows.map((r) => {
    const reportedCost = Number(r.reported_cost);
    const estimatedCost = Number(r.estimated_cost);
    return {
      day: Number(r.day),
      keyId: r.key_id,
      project: r.project,
      model: r.model,
      ...(range.by === "end-user" ? { endUser: r.who } : range.by === "team" ? { team: r.who } : range.by === "tag" ? { tags: r.who } : {}),
      charged: Number(r.charged) === 1,
      calls: Number(r.calls),
      refused: Number(r.refused),
      inFlight: Number(r.in_flight),
      inputTokens: Number(r.input_tokens),
      cachedInputTokens: Number(r.cached_input_tokens),
      outputTokens: Number(r.output_tokens),
      cost: sumAmounts([reportedCost, estimatedCost]),
      reportedCost,
      estimatedCost,
      estimatedCalls: Number(r.estimated_calls),
      inFlightReserved: Number(r.in_flight_reserved),
      reserved: Number(r.reserved),
      cacheHits: Number(r.cache_hits),
      savedCost: Number(r.saved_cost),
    };
  });
}

/**
 * Deletes one small batch of finished, settled entries older than `olderThan` (in the caller's
 * write transaction), taking them out of the hourly rollup: the dashboard shows what the
 * journal still holds.
 */
export async function pruneJournal(db: Kysely<Database>, run: RunQuery, hot: HotStatements, olderThan: Date, batchSize: number): Promise<number> {
  const victims = db
    .selectFrom("journal_entry")
    .select("id")
    .where("received_at", "<", olderThan.getTime())
    .where("finished_at", "is not", null)
    .where((eb) => eb.or([eb("reconcile", "is", null), eb("reconcile", "<>", "pending")]))
    .orderBy("received_at")
    .limit(Math.max(1, batchSize));
  const deleted = await db.deleteFrom("journal_entry").where("id", "in", victims).returning([...ROLLUP_ENTRY_COLUMNS, "reserved_charges"]).execute();
  const rollup = newRollupDeltas();
  for (const entry of deleted) addToRollup(rollup, entry, -1);
  await keepPrunedSpend(db, deleted);
  const touched = new Map(rollup);
  await applyRollup(run, hot.rollup, rollup);
  await afterRollupDeletes(db, touched);
  return deleted.length;
}

/**
 * Adds the cost of deleted entries to their budget rows' `pruned_nanos`, so the books' check
 * (spent = the journal's cost + what retention deleted) holds after retention. Rows in key order,
 * as every writer touches them.
 */
async function keepPrunedSpend(db: Kysely<Database>, deleted: ReadonlyArray<{ cost: number | string | null; reserved_charges: string | null }>): Promise<void> {
  const pruned = new Map<string, { budgetId: string; period: string; nanos: number }>();
  for (const entry of deleted) {
    const nanos = toNanos(Number(entry.cost ?? 0));
    if (nanos === 0) continue;
    for (const [budgetId, period] of parseReservedCharges(entry.reserved_charges)) {
      const key = budgetKey(budgetId, period);
      const row = pruned.get(key) ?? { budgetId, period, nanos: 0 };
      row.nanos += nanos;
      pruned.set(key, row);
    }
  }
  for (const [, row] of [...pruned.entries()].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))) {
    await db
      .updateTable("budget_usage")
      .set((eb) => ({ pruned_nanos: eb("pruned_nanos", "+", row.nanos) }))
      .where("budget_id", "=", row.budgetId)
      .where("period", "=", row.period)
      .execute();
  }
}

const num = (v: number | null): number | null => (v === null ? null : Number(v));
/** An amount as read back: the whole number of billionths it was stored as (an older float sum loses its drift). */
const amount = (v: number | null): number | null => (v === null ? null : fromNanos(toNanos(Number(v))));

function toEntry(r: Selectable<JournalEntryTable>): JournalEntry {
  return {
    id: r.id,
    receivedAt: Number(r.received_at),
    requestId: r.request_id,
    keyId: r.key_id,
    project: r.project,
    route: r.route,
    model: r.model,
    provider: r.provider,
    upstreamModel: r.upstream_model,
    region: r.region,
    stream: Number(r.stream) === 1,
    requestBytes: Number(r.request_bytes),
    clientAddress: r.client_address,
    requestBody: r.request_body,
    finishedAt: num(r.finished_at),
    outcome: r.outcome as JournalEntry["outcome"],
    status: num(r.status),
    ttfbMs: num(r.ttfb_ms),
    totalMs: num(r.total_ms),
    upstreamMs: num(r.upstream_ms),
    inputTokens: num(r.input_tokens),
    cachedInputTokens: num(r.cached_input_tokens),
    outputTokens: num(r.output_tokens),
    reservedCost: amount(r.reserved_cost),
    cost: amount(r.cost),
    costEstimated: r.cost_estimated === null ? null : Number(r.cost_estimated) === 1,
    savedCost: amount(r.saved_cost),
    errorCode: r.error_code,
    responseBody: r.response_body,
    reconcile: r.reconcile as JournalEntry["reconcile"],
    attempts: r.attempts === null ? null : (JSON.parse(r.attempts) as JournalAttempt[]).map((attempt) => ({ ...attempt, cost: amount(attempt.cost) })),
    guardrails: r.guardrails === null ? null : (JSON.parse(r.guardrails) as JournalGuardrail[]),
    endUser: r.end_user,
    team: r.team,
    tags: r.tags === null ? null : (JSON.parse(r.tags) as Array<[string, string]>),
    downgradedFrom: r.downgraded_from,
  };
}
