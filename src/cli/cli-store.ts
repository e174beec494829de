import process from "node:process";
import { resolveConfig } from "../config/config-resolve.ts";
import type { Runtime } from "../runtime/runtime.ts";
import { createStore } from "../storage/store-open.ts";
import type { Config } from "../config/config-schema.ts";
import type { Store } from "../storage/store.ts";
import { BudgetRequestError, httpBudgetClient, storeBudgetClient } from "./budget-client.ts";
import { executeBudgetCommand, parseBudgetArgs, type BudgetCommand } from "./cli-budget.ts";
import { executeBudgetAdminCommand, parseBudgetAdminArgs, type BudgetAdminCommand } from "./cli-budgets.ts";
import { ALERTS_USAGE, BUDGET_USAGE, JOURNAL_USAGE, wantsHelp } from "./cli-help.ts";
import { executeAlertsCommand, parseAlertsArgs, type AlertsCommand } from "./cli-alerts.ts";
import { usageLine, UsageError } from "../shared/cli-args.ts";
import { executeJournalCommand, parseJournalArgs, type JournalCommand } from "./cli-journal.ts";

/**
 * `renio journal …`, `renio budget …` and `renio alerts …`: validate the arguments, then load the config,
 * open the configured store, run, close. Help goes to `out` (exit 0); a usage error is one
 * line on `err` (exit 2), and in both cases no config is read and no store is opened.
 */
export async function runStoreCommand(
  command: "journal" | "budget" | "alerts",
  args: string[],
  runtime: Runtime,
  out: (line: string) => void,
  err: (line: string) => void,
): Promise<number> {
  if (wantsHelp(args)) {
    out(command === "journal" ? JOURNAL_USAGE : command === "budget" ? BUDGET_USAGE : ALERTS_USAGE);
    return 0;
  }
  let parsed:
    | { readonly command: "journal"; readonly action: JournalCommand }
    | { readonly command: "budget"; readonly action: BudgetCommand }
    | { readonly command: "alerts"; readonly action: AlertsCommand };
  try {
    parsed =
      command === "journal"
        ? { command, action: parseJournalArgs(args, Date.now()) }
        : command === "budget"
          ? { command, action: parseBudgetArgs(args) }
          : { command, action: parseAlertsArgs(args) };
  } catch (error) {
    if (!(error instanceof UsageError)) throw error;
    err(usageLine(command, error));
    return 2;
  }
  const { config, store } = await openConfiguredStore(parsed.action.sub === "help" ? undefined : parsed.action.configPath, runtime);
  try {
    if (parsed.command === "journal") return await executeJournalCommand(parsed.action, store, out, err);
    if (parsed.command === "alerts") await executeAlertsCommand(parsed.action, store, out);
    else await executeBudgetCommand(parsed.action, store, { budgets: config.budgets, defaultMode: config.budget.mode, currency: config.budget.currency }, out);
    return 0;
  } finally {
    await store.close();
  }
}

/**
 * `renio budget(s) list|set|delete|pause|resume`: through a running relay's admin API
 * (`--url`, token from RENIO_ADMIN_TOKEN), or on the configured store directly (`--config`,
 * default the embedded default's). A usage error or a body the admin rules refuse (400) exits
 * 2; a refusal (404, 409) or an unreachable relay exits 1; the message is one line on `err`.
 */
export async function runBudgetAdminCommand(
  name: string,
  args: string[],
  runtime: Runtime,
  out: (line: string) => void,
  err: (line: string) => void,
): Promise<number> {
  let command: BudgetAdminCommand;
  try {
    command = parseBudgetAdminArgs(args);
  } catch (error) {
    if (!(error instanceof UsageError)) throw error;
    err(usageLine(name, error));
    return 2;
  }
  const target = command.target;
  try {
    if ("url" in target) return await executeBudgetAdminCommand(command, httpBudgetClient(target.url, target.token), out);
    const { config, store } = await openConfiguredStore(target.configPath, runtime);
    try {
      return await executeBudgetAdminCommand(command, storeBudgetClient(store, config.budgets, config.budget.mode), out);
    } finally {
      await store.close();
    }
  } catch (error) {
    if (!(error instanceof BudgetRequestError)) throw error;
    err(`renio ${name}: ${error.message}`);
    return error.status === 400 ? 2 : 1;
  }
}

/** The config at `configPath` (absent: RENIO_CONFIG, else the embedded default), with the environment over it, and its store, open. */
async function openConfiguredStore(configPath: string | undefined, runtime: Runtime): Promise<{ config: Config; store: Store }> {
  const { config } = await resolveConfig({ file: configPath, env: process.env });
  const store = await createStore(config.storage, { durability: config.journal.durability, openSqlite: runtime.openSqlite });
  return { config, store };
}
