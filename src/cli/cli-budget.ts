import { parseArgs } from "node:util";
import type { BudgetConfig } from "../config/config-schema.ts";
import { configuredUsage, currentRows } from "../budget/budget-usage.ts";
import { REPORT_BY, REPORT_PERIODS, spendReport, type ReportBy, type ReportPeriod, type ReportRequest, type SpendReport, type SpendTotals } from "../budget/spend-report.ts";
import type { Store } from "../storage/store.ts";
import { BUDGET_USAGE, wantsHelp } from "./cli-help.ts";
import { parseFlags, parseTime, usageLine, UsageError } from "./cli-journal.ts";

/** A budget's mode: `strict` refuses calls past the limit, `observe` only records. */
export type BudgetMode = NonNullable<BudgetConfig["mode"]>;

/** One configured budget in its current period. */
export interface BudgetStatusRow {
  budgetId: string;
  scope: string;
  period: string;
  /** The mode in effect: the budget's own, else the config's `budget.mode`. */
  mode: BudgetMode;
  limit: number;
  spent: number;
  reserved: number;
  remaining: number;
}

/** A validated `renio budget` command line. */
export type BudgetCommand =
  | { readonly sub: "help" }
  | { readonly sub: "status"; readonly json: boolean }
  | { readonly sub: "reconcile"; readonly costAt: "reserved" | "zero"; readonly json: boolean }
  | { readonly sub: "report"; readonly request: ReportRequest; readonly json: boolean };

/** Validates `renio budget …` arguments (without `--config`); throws {@link UsageError}. Touches no store. */
export function parseBudgetArgs(args: readonly string[]): BudgetCommand {
  if (wantsHelp(args)) return { sub: "help" };
  const [sub, ...rest] = args;
  if (sub === "status") return { sub, json: parseFlags(rest, ["json"]).json !== undefined };
  if (sub === "reconcile") {
    const flags = parseFlags(rest, ["cost-at", "json"]);
    const costAt = flags["cost-at"] ?? "reserved";
    if (costAt !== "reserved" && costAt !== "zero") throw new UsageError("--cost-at must be reserved or zero");
    return { sub, costAt, json: flags.json !== undefined };
  }
  if (sub === "report") return { sub, ...parseReportArgs(rest, Date.now()) };
  throw new UsageError(sub === undefined ? "missing subcommand" : `unknown subcommand "${sub}"`);
}

/** `report [--by key|project|model|budget] [--period day|month] [--since T] [--until T] [--json]`. */
function parseReportArgs(args: readonly string[], now: number): { request: ReportRequest; json: boolean } {
  let values;
  try {
    ({ values } = parseArgs({
      args: [...args],
      options: { by: { type: "string" }, period: { type: "string" }, since: { type: "string" }, until: { type: "string" }, json: { type: "boolean" } },
      strict: true,
      allowPositionals: false,
    }));
  } catch (error) {
    throw new UsageError((error as Error).message);
  }
  const by = values.by ?? "key";
  if (!(REPORT_BY as readonly string[]).includes(by)) throw new UsageError(`--by must be one of ${REPORT_BY.join(", ")}`);
  const period = values.period ?? "month";
  if (!(REPORT_PERIODS as readonly string[]).includes(period)) throw new UsageError(`--period must be one of ${REPORT_PERIODS.join(", ")}`);
  if (by === "budget" && values.period !== undefined) throw new UsageError("--period does not apply to --by budget (each budget is reported in its own periods)");
  const request: ReportRequest = {
    by: by as ReportBy,
    period: period as ReportPeriod,
    ...(values.since !== undefined && { since: parseTime(values.since, now, "--since") }),
    ...(values.until !== undefined && { until: parseTime(values.until, now, "--until") }),
  };
  return { request, json: values.json === true };
}

/** What `renio budget` reads besides the store. */
export interface BudgetSettings {
  readonly budgets: readonly BudgetConfig[];
  /** The config's `budget.mode`: the mode of a budget without its own. */
  readonly defaultMode: BudgetMode;
  /** The config's `budget.currency`, named by the report. */
  readonly currency: string;
}

/** Runs a parsed `renio budget` command against an open store; writes lines through `out`. */
export async function executeBudgetCommand(command: BudgetCommand, store: Store, settings: BudgetSettings, out: (line: string) => void): Promise<void> {
  if (command.sub === "help") {
    out(BUDGET_USAGE);
    return;
  }
  if (command.sub === "status") {
    const rows = await budgetStatus(store, settings.budgets, settings.defaultMode, new Date());
    if (command.json) out(JSON.stringify(rows, null, 2));
    else printStatus(rows, out);
    return;
  }
  if (command.sub === "report") {
    const { request } = command;
    const spend = await store.journalSpend({ since: request.since, until: request.until });
    const stored = request.by === "budget" ? await store.budgetUsage() : [];
    const report = spendReport(request, spend, settings.budgets, stored, settings.currency);
    if (command.json) out(JSON.stringify(report, null, 2));
    else printReport(report, out);
    return;
  }
  const result = await store.reconcile(command.costAt, Date.now());
  if (command.json) out(JSON.stringify(result));
  else out(`reconciled ${result.entries} interrupted call(s): ${round(result.charged)} charged, ${round(result.released)} released`);
}

/**
 * `renio budget status|reconcile` against an open store. Output goes to `out`, a usage
 * error as one line to `options.err` (default `out`); budgets without a mode show
 * `options.defaultMode` (default `strict`, the config's default). Returns the exit code
 * (0 ok, 2 bad arguments).
 */
export async function runBudgetCommand(
  args: string[],
  store: Store,
  budgets: readonly BudgetConfig[],
  out: (line: string) => void,
  options: { readonly defaultMode?: BudgetMode; readonly currency?: string; readonly err?: (line: string) => void } = {},
): Promise<number> {
  let command: BudgetCommand;
  try {
    command = parseBudgetArgs(args);
  } catch (error) {
    if (!(error instanceof UsageError)) throw error;
    (options.err ?? out)(usageLine("budget", error));
    return 2;
  }
  await executeBudgetCommand(command, store, { budgets, defaultMode: options.defaultMode ?? "strict", currency: options.currency ?? "USD" }, out);
  return 0;
}

/** Every configured budget in the period `now` falls in, with its stored usage (zero if none yet) and the mode in effect. */
export async function budgetStatus(store: Store, budgets: readonly BudgetConfig[], defaultMode: BudgetMode, now: Date): Promise<BudgetStatusRow[]> {
  const stored = await store.budgetUsage(currentRows(budgets, now));
  return configuredUsage(budgets, stored, now).map(({ budget: b, usage: u }) => ({
    budgetId: b.id,
    scope: scopeText(b.scope),
    period: u.period,
    mode: b.mode ?? defaultMode,
    limit: u.limit,
    spent: u.spent,
    reserved: u.reserved,
    remaining: u.remaining,
  }));
}

function scopeText(scope: BudgetConfig["scope"]): string {
  if (scope === "total") return "total";
  return "project" in scope ? `project:${scope.project}` : `key:${scope.key}`;
}

const round = (n: number): string => String(Math.round(n * 1e6) / 1e6);

/** The report as a table: one line per row, then the total and the currency. */
function printReport(report: SpendReport, out: (line: string) => void): void {
  const amounts = (t: SpendTotals) => [String(t.calls), String(t.refused), String(t.inputTokens), String(t.cachedInputTokens), String(t.outputTokens), round(t.cost), round(t.reportedCost), round(t.estimatedCost), String(t.estimatedCalls)];
  const common = ["CALLS", "REFUSED", "INPUT", "CACHED", "OUTPUT", "COST", "REPORTED", "ESTIMATED", "EST_CALLS"];
  let header: string[];
  let cells: string[][];
  if (report.by === "budget") {
    header = ["BUDGET", "PERIOD", ...common, "IN_FLIGHT", "BUDGET_SPENT", "BUDGET_RESERVED", "DIFFERENCE"];
    cells = report.rows.map((r) => [r.budgetId, r.period, ...amounts(r), round(r.inFlightReserved), round(r.budgetSpent), round(r.budgetReserved), round(r.difference)]);
  } else {
    header = ["PERIOD", report.by.toUpperCase(), ...common];
    cells = report.rows.map((r) => [r.period, r.group ?? "-", ...amounts(r)]);
    cells.push(["total", "", ...amounts(report.total)]);
  }
  printTable(header, cells, out);
  if (report.rows.length === 0) out("(no journal entries)");
  out(`amounts in ${report.currency}; ESTIMATED: charged at the reservation without the provider's usage (interrupted, cut, timed out)`);
}

function printTable(header: readonly string[], cells: readonly string[][], out: (line: string) => void): void {
  const widths = header.map((h, i) => Math.max(h.length, ...cells.map((c) => (c[i] as string).length)));
  for (const row of [header, ...cells]) out(row.map((c, i) => c.padEnd(widths[i] as number)).join("  ").trimEnd());
}

function printStatus(rows: readonly BudgetStatusRow[], out: (line: string) => void): void {
  if (rows.length === 0) {
    out("(no budgets configured)");
    return;
  }
  const header = ["BUDGET", "SCOPE", "PERIOD", "MODE", "LIMIT", "SPENT", "RESERVED", "REMAINING"];
  printTable(header, rows.map((r) => [r.budgetId, r.scope, r.period, r.mode, round(r.limit), round(r.spent), round(r.reserved), round(r.remaining)]), out);
}
