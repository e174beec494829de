import { DEFAULT_CONFIG } from "../config/default-config.ts";
import { loadConfigFile, validateConfig } from "../config/config-load.ts";
import type { Runtime } from "../runtime/runtime.ts";
import { createStore } from "../storage/store-open.ts";
import { executeBudgetCommand, parseBudgetArgs, type BudgetCommand } from "./cli-budget.ts";
import { BUDGET_USAGE, JOURNAL_USAGE, wantsHelp } from "./cli-help.ts";
import { executeJournalCommand, parseJournalArgs, type JournalCommand, usageLine, UsageError } from "./cli-journal.ts";

/**
 * `renio journal …` and `renio budget …`: validate the arguments, then load the config,
 * open the configured store, run, close. Help goes to `out` (exit 0); a usage error is one
 * line on `err` (exit 2), and in both cases no config is read and no store is opened.
 */
export async function runStoreCommand(
  command: "journal" | "budget",
  args: string[],
  runtime: Runtime,
  out: (line: string) => void,
  err: (line: string) => void,
): Promise<number> {
  if (wantsHelp(args)) {
    out(command === "journal" ? JOURNAL_USAGE : BUDGET_USAGE);
    return 0;
  }
  let configPath: string | undefined;
  let parsed: { readonly command: "journal"; readonly action: JournalCommand } | { readonly command: "budget"; readonly action: BudgetCommand };
  try {
    const split = takeConfigFlag(args);
    configPath = split.configPath;
    parsed = command === "journal" ? { command, action: parseJournalArgs(split.rest, Date.now()) } : { command, action: parseBudgetArgs(split.rest) };
  } catch (error) {
    if (!(error instanceof UsageError)) throw error;
    err(usageLine(command, error));
    return 2;
  }
  const config = configPath === undefined ? validateConfig(structuredClone(DEFAULT_CONFIG)) : await loadConfigFile(configPath);
  const store = await createStore(config.storage, { durability: config.journal.durability, openSqlite: runtime.openSqlite });
  try {
    if (parsed.command === "journal") await executeJournalCommand(parsed.action, store, out);
    else await executeBudgetCommand(parsed.action, store, { budgets: config.budgets, defaultMode: config.budget.mode, currency: config.budget.currency }, out);
    return 0;
  } finally {
    await store.close();
  }
}

/** Splits `--config FILE` / `--config=FILE` out of the arguments; throws {@link UsageError} without a file. */
function takeConfigFlag(args: readonly string[]): { configPath: string | undefined; rest: string[] } {
  const rest: string[] = [];
  let configPath: string | undefined;
  for (let i = 0; i < args.length; i++) {
    const arg = args[i]!;
    if (arg === "--config" || arg.startsWith("--config=")) {
      configPath = arg === "--config" ? args[++i] : arg.slice("--config=".length);
      if (configPath === undefined || configPath === "") throw new UsageError("--config needs a file");
    } else rest.push(arg);
  }
  return { configPath, rest };
}
