import type { BudgetConfig } from "../config/config-schema.ts";
import { budgetKey } from "./budget-key.ts";
import { periodOf } from "./budget-plan.ts";
import type { BudgetUsage, DefinedBudget } from "./budget-usage.ts";
import { fromNanos, sumAmounts, toNanos } from "../shared/money.ts";

/**
 * The reconciliation report: what the journal says was spent, grouped by key, project, model
 * or budget and by period, with the part the provider reported apart from the part Renio
 * estimated (charged at the reservation). Pure: the store hands it journal sums per UTC day.
 */

/** What a report groups by. */
export const REPORT_BY = ["key", "project", "model", "budget", "end-user", "team", "tag"] as const;
export type ReportBy = (typeof REPORT_BY)[number];

/** The periods a report sums over (calendar, UTC); `--by budget` uses each budget's own. */
export const REPORT_PERIODS = ["day", "month"] as const;
export type ReportPeriod = (typeof REPORT_PERIODS)[number];

/** Sums of journal entries; amounts in the budget currency. */
export interface SpendTotals {
  /** Calls forwarded to a provider (routed, and not `refused` or served from the cache; a client gone while uploading its body is neither). */
  calls: number;
  /** Calls refused by Renio (never sent). */
  refused: number;
  /** Calls still in flight (outcome `started`). */
  inFlight: number;
  inputTokens: number;
  cachedInputTokens: number;
  outputTokens: number;
  /** reportedCost + estimatedCost. */
  cost: number;
  /** Cost computed from the usage the provider reported. */
  reportedCost: number;
  /**
   * Cost charged at the reservation without the provider's final usage: interrupted calls
   * (pending reconciliation or reconciled) and calls that ended without final usage (a cut
   * stream, a timeout, a reset) when the provider may have billed them.
   */
  estimatedCost: number;
  /** How many calls estimatedCost covers. */
  estimatedCalls: number;
  /** Reservations held by calls in flight (not part of `cost`). */
  inFlightReserved: number;
  /**
   * Reservations the calls counted in `cost` held until they settled: against `cost`, how much
   * budget headroom reservations take (tune `budget.defaultOutputTokens` and `maxToolCalls`).
   */
  reserved: number;
  /** Calls answered from the response cache (outcome `cache_hit`: never sent, cost 0). */
  cacheHits: number;
  /** What those answers cost when they were first paid for: what the cache saved. */
  savedCost: number;
}

/** Journal sums of the entries of one UTC day, key, project and model, as the store aggregates them. */
export interface JournalSpend extends SpendTotals {
  /** Days since the epoch (UTC) of `received_at`. */
  day: number;
  keyId: string | null;
  project: string | null;
  model: string | null;
  /** With a report by team: the team the entries were charged as. */
  team?: string | null;
  /** With a report by end user: the end user (within `project`). */
  endUser?: string | null;
  /** With a report by tag: the entries' tags, as the journal holds them (JSON of [name, value] pairs). */
  tags?: string | null;
  /** Whether these entries were charged against budgets (they hold a reservation). */
  charged: boolean;
}

/** One row of a report by key, project or model. */
export interface SpendRow extends SpendTotals {
  /** "2026-12-03" (day) or "2026-12" (month). */
  period: string;
  /** The key id, project or model; null for entries without one (e.g. refused before authentication). */
  group: string | null;
}

/** One row of a report by budget: the journal's sums against the budget row's. */
export interface BudgetReconciliationRow extends SpendTotals {
  budgetId: string;
  scope: BudgetConfig["scope"];
  /** The budget's period: "total", "2026-12" or "2026-12-03". */
  period: string;
  limit: number;
  /** The stored budget row (0 when none). */
  budgetSpent: number;
  budgetReserved: number;
  /** (budgetSpent + budgetReserved) − (cost + inFlightReserved): 0 when journal and budget row agree. */
  difference: number;
}

/** A report as `renio budget report --json` prints it and `GET /admin/report` returns it. */
export type SpendReport =
  | ({ by: Exclude<ReportBy, "budget">; period: ReportPeriod; rows: SpendRow[] } & ReportRange)
  | ({ by: "budget"; period: null; rows: BudgetReconciliationRow[] } & ReportRange);

interface ReportRange {
  /** Epoch ms, inclusive; null for the whole journal. */
  since: number | null;
  /** Epoch ms, exclusive; null for the whole journal. */
  until: number | null;
  currency: string;
  total: SpendTotals;
}

/** What a report is asked for. */
export interface ReportRequest {
  by: ReportBy;
  /** Ignored for `by: "budget"`. */
  period: ReportPeriod;
  since?: number;
  until?: number;
}

const DAY_MS = 86_400_000;

/** Builds the report from the store's journal sums (and, for `by: "budget"`, the configured budgets and stored rows). */
export function spendReport(
  request: ReportRequest,
  spend: readonly JournalSpend[],
  budgets: readonly DefinedBudget[],
  stored: readonly BudgetUsage[],
  currency: string,
): SpendReport {
  const range = { since: request.since ?? null, until: request.until ?? null, currency, total: sum(spend) };
  if (request.by === "budget") return { by: "budget", period: null, rows: budgetRows(spend, budgets, stored, request), ...range };
  const by = request.by;
  const groups = new Map<string, { period: string; group: string | null; parts: JournalSpend[] }>();
  for (const part of spend) {
    const period = periodOf(request.period, new Date(part.day * DAY_MS));
    for (const group of groupsOf(by, part)) {
      const id = `${period}\u0000${group ?? ""}\u0000${group === null ? 0 : 1}`;
      let entry = groups.get(id);
      if (entry === undefined) groups.set(id, (entry = { period, group, parts: [] }));
      entry.parts.push(part);
    }
  }
  const rows = [...groups.values()]
    .map(({ period, group, parts }) => ({ period, group, ...sum(parts) }))
    .sort((a, b) => compare(a.period, b.period) || compare(a.group ?? "", b.group ?? ""));
  return { by, period: request.period, rows, ...range };
}

/**
 * Each configured budget's periods, from the journal's charged entries that fall in its scope,
 * beside its stored row. With since/until, only periods with entries in that range are listed
 * (and a period the range cuts sums only the part inside it).
 */
function budgetRows(
  spend: readonly JournalSpend[],
  budgets: readonly DefinedBudget[],
  stored: readonly BudgetUsage[],
  request: ReportRequest,
): BudgetReconciliationRow[] {
  const storedByKey = new Map(stored.map((row) => [budgetKey(row.budgetId, row.period), row]));
  const whole = request.since === undefined && request.until === undefined;
  const rows: BudgetReconciliationRow[] = [];
  for (const budget of budgets) {
    // Tag and per-end-user budgets are not sums of keys or projects: `renio budget check` holds their rows against the journal's charges.
    if (typeof budget.scope === "object" && ("tag" in budget.scope || "endUser" in budget.scope)) continue;
    const periods = new Map<string, JournalSpend[]>();
    for (const part of spend) {
      if (!part.charged || !inScope(budget.scope, part)) continue;
      const period = periodOf(budget.period, new Date(part.day * DAY_MS));
      periods.set(period, [...(periods.get(period) ?? []), part]);
    }
    if (whole) for (const row of stored) if (row.budgetId === budget.id && !periods.has(row.period)) periods.set(row.period, []);
    for (const [period, parts] of periods) {
      const row = storedByKey.get(budgetKey(budget.id, period));
      const totals = sum(parts);
      const budgetSpent = row?.spent ?? 0;
      const budgetReserved = row?.reserved ?? 0;
      rows.push({
        budgetId: budget.id,
        scope: budget.scope,
        period,
        limit: row?.limit ?? budget.limit,
        ...totals,
        budgetSpent,
        budgetReserved,
        difference: fromNanos(toNanos(budgetSpent) + toNanos(budgetReserved) - toNanos(totals.cost) - toNanos(totals.inFlightReserved)),
      });
    }
  }
  return rows.sort((a, b) => compare(a.budgetId, b.budgetId) || compare(a.period, b.period));
}

/**
 * The groups a part of the journal's sums falls in: its key, project, model or team; its end
 * user as `project/end-user` (an end user belongs to its key's project); each of its tags as
 * `name=value` (a call with two tags counts in both groups, so tag groups may add up to more
 * than the total).
 */
function groupsOf(by: Exclude<ReportBy, "budget">, part: JournalSpend): Array<string | null> {
  switch (by) {
    case "key":
      return [part.keyId];
    case "project":
      return [part.project];
    case "model":
      return [part.model];
    case "team":
      return [part.team ?? null];
    case "end-user":
      return [part.endUser == null ? null : `${part.project ?? ""}/${part.endUser}`];
    case "tag": {
      const tags = part.tags == null ? [] : (JSON.parse(part.tags) as Array<[string, string]>);
      return tags.length === 0 ? [null] : tags.map(([name, value]) => `${name}=${value}`);
    }
  }
}

function inScope(scope: BudgetConfig["scope"], part: JournalSpend): boolean {
  if (scope === "total") return true;
  if ("project" in scope) return part.project === scope.project;
  if ("key" in scope) return part.keyId === scope.key;
  if ("team" in scope) return part.team === scope.team;
  return false;
}

function sum(parts: readonly SpendTotals[]): SpendTotals {
  const total: SpendTotals = {
    calls: 0, refused: 0, inFlight: 0, inputTokens: 0, cachedInputTokens: 0, outputTokens: 0,
    cost: 0, reportedCost: 0, estimatedCost: 0, estimatedCalls: 0, inFlightReserved: 0, reserved: 0, cacheHits: 0, savedCost: 0,
  };
  for (const part of parts) for (const field of COUNTS) total[field] += part[field];
  // Amounts are summed in billionths (exact), not as binary fractions.
  for (const field of AMOUNTS) total[field] = sumAmounts(parts.map((part) => part[field]));
  return total;
}

const COUNTS = ["calls", "refused", "inFlight", "inputTokens", "cachedInputTokens", "outputTokens", "estimatedCalls", "cacheHits"] as const;
const AMOUNTS = ["cost", "reportedCost", "estimatedCost", "inFlightReserved", "reserved", "savedCost"] as const;

function compare(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}
