import process from "node:process";
import { resolveConfig } from "../config/config-resolve.ts";
import type { Runtime } from "../runtime/runtime.ts";
import { createStore } from "../storage/store-open.ts";
import { executeBudgetCommand, parseBudgetArgs, type BudgetCommand } from "./cli-budget.ts";
import { BUDGET_USAGE, JOURNAL_USAGE, wantsHelp } from "./cli-help.ts";
import { usageLine, UsageError } from "./cli-args.ts";
import { executeJournalCommand, parseJournalArgs, type JournalCommand } from "./cli-journal.ts";

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
  let parsed: { readonly command: "journal"; readonly action: JournalCommand } | { readonly command: "budget"; readonly action: BudgetCommand };
  try {
    parsed = command === "journal" ? { command, action: parseJournalArgs(args, Date.now()) } : { command, action: parseBudgetArgs(args) };
  } catch (error) {
    if (!(error instanceof UsageError)) throw error;
    err(usageLine(command, error));
    return 2;
  }
  const configPath = parsed.action.sub === "help" ? undefined : parsed.action.configPath;
  const { config } = await resolveConfig({ file: configPath, env: process.env });
  const store = await createStore(config.storage, { durability: config.journal.durability, openSqlite: runtime.openSqlite });
  try {
    if (parsed.command === "journal") await executeJournalCommand(parsed.action, store, out);
    else await executeBudgetCommand(parsed.action, store, { budgets: config.budgets, defaultMode: config.budget.mode, currency: config.budget.currency }, out);
    return 0;
  } finally {
    await store.close();
  }
}
