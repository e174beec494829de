import type { BudgetMode } from "../budgets/budget-definition.ts";
import type { BudgetConfig } from "../config/config-schema.ts";
import { budgetsInForce } from "../budgets/budget-usage.ts";
import { budgetStatus, type BudgetStatus } from "../budgets/budget-status.ts";
import type { BudgetDefinitionStore } from "../budgets/budget-store.ts";
import type { BudgetReader } from "./relay-reader.ts";
import { TARGET_OPTIONS, targetFlags, type TargetFlags } from "./cli-target.ts";
import { REPORT_BY, REPORT_PERIODS, spendReport, type ReportRequest, type SpendReport, type SpendTotals } from "../budgets/spend-report.ts";
import type { JournalReader, StoreMaintenance } from "../journal/journal-store.ts";
import { parseSubcommand, usageLine, UsageError } from "../shared/cli-args.ts";
import { BUDGET_ADMIN_SUBCOMMANDS, scopeText } from "./cli-budgets.ts";
import { BUDGET_USAGE, wantsHelp } from "./cli-help.ts";
import { printTable } from "./cli-table.ts";
import { formatAmount as round } from "../shared/money.ts";
import { parseTime } from "./cli-journal.ts";

/** A validated `renio budget` command line; `target` is its `--url` and `--config`. */
export type BudgetCommand =
  | { readonly sub: "help" }
  | { readonly sub: "status"; readonly target: TargetFlags; readonly json: boolean }
  | { readonly sub: "reconcile"; readonly target: TargetFlags; readonly costAt: "reserved" | "zero"; readonly json: boolean }
  | { readonly sub: "report"; readonly target: TargetFlags; readonly request: ReportRequest; readonly json: boolean };

const STATUS_OPTIONS = { ...TARGET_OPTIONS, json: { type: "boolean" } } as const;
const RECONCILE_OPTIONS = { ...STATUS_OPTIONS, "cost-at": { type: "string", oneOf: ["reserved", "zero"], default: "reserved" } } as const;
const REPORT_OPTIONS = {
  ...STATUS_OPTIONS,
  by: { type: "string", oneOf: REPORT_BY, default: "key" },
  // No default here: --by budget refuses an explicit --period (see reportRequest).
  period: { type: "string", oneOf: REPORT_PERIODS },
  since: { type: "string" },
  until: { type: "string" },
} as const;

/** Validates `renio budget …` arguments; throws {@link UsageError}. Touches no store. */
export function parseBudgetArgs(args: readonly string[]): BudgetCommand {
  if (wantsHelp(args)) return { sub: "help" };
  const line = parseSubcommand(args, { status: STATUS_OPTIONS, reconcile: RECONCILE_OPTIONS, report: REPORT_OPTIONS }, {}, BUDGET_ADMIN_SUBCOMMANDS);
  const target = targetFlags(line.values);
  if (line.sub === "status") return { sub: "status", target, json: line.values.json };
  if (line.sub === "report") return { sub: "report", target, request: reportRequest(line.values, Date.now()), json: line.values.json };
  return { sub: "reconcile", target, costAt: line.values["cost-at"], json: line.values.json };
}

/** The report asked for by `report`'s options; `--period` does not combine with `--by budget`. */
function reportRequest(values: { by: ReportRequest["by"]; period: ReportRequest["period"] | undefined; since: string | undefined; until: string | undefined }, now: number): ReportRequest {
  if (values.by === "budget" && values.period !== undefined) throw new UsageError("--period does not apply to --by budget (each budget is reported in its own periods)");
  return {
    by: values.by,
    period: values.period ?? "month",
    ...(values.since !== undefined && { since: parseTime(values.since, now, "--since") }),
    ...(values.until !== undefined && { until: parseTime(values.until, now, "--until") }),
  };
}

/** What `renio budget` reads besides the store. */
export interface BudgetSettings {
  readonly budgets: readonly BudgetConfig[];
  /** The config's `budget.mode`: the mode of a budget without its own. */
  readonly defaultMode: BudgetMode;
  /** The config's `budget.currency`, named by the report. */
  readonly currency: string;
}

/** What `renio budget` needs of a store: budgets and their rows for `status`, settlement for `reconcile`, journal sums for `report`. */
export type BudgetCommandStore = JournalReader & Pick<StoreMaintenance, "reconcile"> & Pick<BudgetDefinitionStore, "listBudgets">;

/** `status` and `report` on a store: the config's budgets and those created at run time. */
export function storeBudgetReader(store: BudgetCommandStore, settings: BudgetSettings): BudgetReader {
  const inForce = async () => budgetsInForce(settings.budgets, await store.listBudgets());
  return {
    status: async () => budgetStatus(store, await inForce(), settings.defaultMode, new Date()),
    report: async (request) => {
      const by = request.by;
      // By budget: grouped by team too, for team budgets.
      const spend = await store.journalSpend({ since: request.since, until: request.until, ...(by === "end-user" || by === "team" || by === "tag" ? { by } : by === "budget" ? { by: "team" as const } : {}) });
      if (request.by !== "budget") return spendReport(request, spend, [], [], settings.currency);
      return spendReport(request, spend, await inForce(), await store.budgetUsage(), settings.currency);
    },
  };
}

/** Runs a parsed `renio budget` command on `reader` (`reconcile`: on `store`, absent through a relay); writes lines through `out`. */
export async function executeBudgetCommand(command: BudgetCommand, reader: BudgetReader, store: Pick<StoreMaintenance, "reconcile"> | undefined, out: (line: string) => void): Promise<void> {
  if (command.sub === "help") {
    out(BUDGET_USAGE);
    return;
  }
  if (command.sub === "status") {
    const rows = (await reader.status()).map((row) => ({ ...row, scope: scopeText(row.scope) }));
    if (command.json) out(JSON.stringify(rows, null, 2));
    else printStatus(rows, out);
    return;
  }
  if (command.sub === "report") {
    const report = await reader.report(command.request);
    if (command.json) out(JSON.stringify(report, null, 2));
    else printReport(report, out);
    return;
  }
  if (store === undefined) throw new UsageError("reconcile settles the store of a stopped relay: give --config, not --url");
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
  store: BudgetCommandStore,
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
  await executeBudgetCommand(command, storeBudgetReader(store, { budgets, defaultMode: options.defaultMode ?? "strict", currency: options.currency ?? "USD" }), store, out);
  return 0;
}

/** The report as a table: one line per row, then the total and the currency. */
function printReport(report: SpendReport, out: (line: string) => void): void {
  const amounts = (t: SpendTotals) => [String(t.calls), String(t.refused), String(t.inputTokens), String(t.cachedInputTokens), String(t.outputTokens), round(t.cost), round(t.reportedCost), round(t.estimatedCost), String(t.estimatedCalls), round(t.reserved), String(t.cacheHits), round(t.savedCost)];
  const common = ["CALLS", "REFUSED", "INPUT", "CACHED", "OUTPUT", "COST", "REPORTED", "ESTIMATED", "EST_CALLS", "RESERVED", "CACHE_HITS", "SAVED"];
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
  out(`amounts in ${report.currency}; ESTIMATED: charged at the reservation without the provider's usage (interrupted, cut, timed out); RESERVED: what those calls held against their budgets until they settled; CACHE_HITS: answered from the response cache (cost 0), SAVED: what those answers first cost`);
}

function printStatus(rows: ReadonlyArray<Omit<BudgetStatus, "scope"> & { scope: string }>, out: (line: string) => void): void {
  if (rows.length === 0) {
    out("(no budgets)");
    return;
  }
  const header = ["BUDGET", "SCOPE", "PERIOD", "MODE", "LIMIT", "SPENT", "RESERVED", "REMAINING"];
  const cells = rows.map((r) => [r.budgetId, r.scope, r.period, r.paused ? `${r.mode} (paused)` : r.mode, round(r.limit), round(r.spent), round(r.reserved), round(r.remaining)]);
  printTable(header, cells, out);
}
