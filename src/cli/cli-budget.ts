import type { BudgetMode } from "../budget/budget-definition.ts";
import type { BudgetConfig } from "../config/config-schema.ts";
import { configuredUsage, currentRows } from "../budget/budget-usage.ts";
import type { JournalReader, StoreMaintenance } from "../storage/store.ts";
import { CONFIG_OPTION, parseSubcommand, usageLine, UsageError } from "./cli-args.ts";
import { scopeText } from "./cli-budgets.ts";
import { BUDGET_USAGE, wantsHelp } from "./cli-help.ts";
import { amountText as round, printTable } from "./cli-table.ts";

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

/** A validated `renio budget` command line; `configPath` is its `--config FILE`, if any. */
export type BudgetCommand =
  | { readonly sub: "help" }
  | { readonly sub: "status"; readonly configPath: string | undefined; readonly json: boolean }
  | { readonly sub: "reconcile"; readonly configPath: string | undefined; readonly costAt: "reserved" | "zero"; readonly json: boolean };

const STATUS_OPTIONS = { config: CONFIG_OPTION, json: { type: "boolean" } } as const;
const RECONCILE_OPTIONS = { ...STATUS_OPTIONS, "cost-at": { type: "string", oneOf: ["reserved", "zero"], default: "reserved" } } as const;

/** Validates `renio budget …` arguments; throws {@link UsageError}. Touches no store. */
export function parseBudgetArgs(args: readonly string[]): BudgetCommand {
  if (wantsHelp(args)) return { sub: "help" };
  const line = parseSubcommand(args, { status: STATUS_OPTIONS, reconcile: RECONCILE_OPTIONS });
  if (line.sub === "status") return { sub: "status", configPath: line.values.config, json: line.values.json };
  return { sub: "reconcile", configPath: line.values.config, costAt: line.values["cost-at"], json: line.values.json };
}

/** What `renio budget` reads besides the store. */
export interface BudgetSettings {
  readonly budgets: readonly BudgetConfig[];
  /** The config's `budget.mode`: the mode of a budget without its own. */
  readonly defaultMode: BudgetMode;
}

/** What `renio budget` needs of the store: budget rows for `status`, settlement for `reconcile`. */
type BudgetCommandStore = JournalReader & Pick<StoreMaintenance, "reconcile">;

/** Runs a parsed `renio budget` command against an open store; writes lines through `out`. */
export async function executeBudgetCommand(command: BudgetCommand, store: BudgetCommandStore, settings: BudgetSettings, out: (line: string) => void): Promise<void> {
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
  options: { readonly defaultMode?: BudgetMode; readonly err?: (line: string) => void } = {},
): Promise<number> {
  let command: BudgetCommand;
  try {
    command = parseBudgetArgs(args);
  } catch (error) {
    if (!(error instanceof UsageError)) throw error;
    (options.err ?? out)(usageLine("budget", error));
    return 2;
  }
  await executeBudgetCommand(command, store, { budgets, defaultMode: options.defaultMode ?? "strict" }, out);
  return 0;
}

/** Every configured budget in the period `now` falls in, with its stored usage (zero if none yet) and the mode in effect. */
export async function budgetStatus(store: JournalReader, budgets: readonly BudgetConfig[], defaultMode: BudgetMode, now: Date): Promise<BudgetStatusRow[]> {
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


function printStatus(rows: readonly BudgetStatusRow[], out: (line: string) => void): void {
  if (rows.length === 0) {
    out("(no budgets configured)");
    return;
  }
  const header = ["BUDGET", "SCOPE", "PERIOD", "MODE", "LIMIT", "SPENT", "RESERVED", "REMAINING"];
  const cells = rows.map((r) => [r.budgetId, r.scope, r.period, r.mode, round(r.limit), round(r.spent), round(r.reserved), round(r.remaining)]);
  printTable(header, cells, out);
}
