import { sql, type Kysely } from "kysely";
import type { DaySpend, EndUserSpend, EndUserQuery, SpendRange } from "../../journal/journal-store.ts";
import { decodeDimension, HOUR_MS } from "./store-rollup.ts";
import type { BudgetUsage } from "../../budgets/budget-usage.ts";
import { amountSum } from "../money-sql.ts";
import type { Database } from "../store-schema.ts";
import { budgetUsageOf } from "../statements/store-admit.ts";

/**
 * The heaviest end users of a time range: entries with an end user (the partial index on
 * received_at and end_user), summed per project and end user, dearest first.
 */
export async function endUserSpend(db: Kysely<Database>, query: EndUserQuery): Promise<EndUserSpend[]> {
  let q = db
    .selectFrom("journal_entry")
    .select(["project", "end_user", sql<number>`count(*)`.as("calls"), amountSum(sql`coalesce(cost, 0)`).as("cost")])
    .where("end_user", "is not", null)
    .where("received_at", ">=", query.since)
    .where("received_at", "<", query.until);
  if (query.project !== undefined) q = q.where("project", "=", query.project);
  const rows = await q.groupBy(["project", "end_user"]).orderBy("cost", "desc").orderBy("end_user").limit(query.limit).execute();
  return rows.map((row) => ({ project: row.project, endUser: row.end_user ?? "", calls: Number(row.calls), cost: Number(row.cost) }));
}

/** The rows of a per-end-user budget in one period, most spent first (its end users). */
export async function endUserBudgetRows(db: Kysely<Database>, templateId: string, period: string, limit: number): Promise<BudgetUsage[]> {
  // Row ids are `template/end-user` (a prefix test, the same under every collation).
  const prefix = `${templateId}/`;
  const rows = await db
    .selectFrom("budget_usage")
    .select(["budget_id", "period", "limit_nanos", "spent_nanos", "reserved_nanos"])
    .where(sql`substr(budget_id, 1, ${prefix.length})`, "=", prefix)
    .where("period", "=", period)
    .orderBy(sql`spent_nanos + reserved_nanos`, "desc")
    .orderBy("budget_id")
    .limit(limit)
    .execute();
  return rows.map(budgetUsageOf);
}

const DAY_MS = 86_400_000;

/**
 * Calls and cost per UTC day and project, from the hourly rollup (finished calls of the whole
 * hours of the range): what a team's spend over time is made of, as fast over a month as over a
 * day, however many end users there are.
 */
export async function projectDays(db: Kysely<Database>, range: Required<Pick<SpendRange, "since" | "until">>): Promise<DaySpend[]> {
  const from = Math.floor(range.since / HOUR_MS) * HOUR_MS;
  const rows = await db
    .selectFrom("usage_hour")
    .select([sql<number>`hour / ${sql.lit(DAY_MS)}`.as("day"), "project", sql<number>`sum(calls)`.as("calls"), sql<number>`sum(cost)`.as("cost")])
    .where("hour", ">=", from)
    .where("hour", "<", range.until)
    .groupBy([sql`hour / ${sql.lit(DAY_MS)}`, "project"])
    .execute();
  return rows.map((row) => ({ day: Number(row.day), group: decodeDimension(row.project), calls: Number(row.calls), cost: Number(row.cost) }));
}

/** Calls and cost per UTC day and tag set (the journal's JSON), of the tagged entries of the range (a partial index holds only them). */
export async function tagDays(db: Kysely<Database>, range: Required<Pick<SpendRange, "since" | "until">>): Promise<DaySpend[]> {
  const rows = await db
    .selectFrom("journal_entry")
    .select([sql<number>`received_at / ${sql.lit(DAY_MS)}`.as("day"), "tags", sql<number>`count(*)`.as("calls"), amountSum(sql`coalesce(cost, 0)`).as("cost")])
    .where("tags", "is not", null)
    .where("received_at", ">=", range.since)
    .where("received_at", "<", range.until)
    .groupBy([sql`received_at / ${sql.lit(DAY_MS)}`, "tags"])
    .execute();
  return rows.map((row) => ({ day: Number(row.day), group: row.tags, calls: Number(row.calls), cost: Number(row.cost) }));
}
