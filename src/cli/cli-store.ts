import type { Runtime } from "../runtime/runtime.ts";
import { createStore } from "../storage/store-open.ts";
import type { Config } from "../config/config-schema.ts";
import type { Store } from "../storage/store.ts";
import { BudgetRequestError, httpBudgetClient, storeBudgetClient } from "./budget-client.ts";
import { executeBudgetCommand, parseBudgetArgs, storeBudgetReader, type BudgetCommand } from "./cli-budget.ts";
import { adminCall } from "./admin-target.ts";
import { announcedTarget } from "./cli-target.ts";
import { relayAlerts, relayBudgets, relayJournal } from "./relay-reader.ts";
import { executeBudgetAdminCommand, parseBudgetAdminArgs, type BudgetAdminCommand } from "./cli-budgets.ts";
import { ALERTS_USAGE, BUDGET_USAGE, JOURNAL_USAGE, wantsHelp } from "./cli-help.ts";
import { executeAlertsCommand, parseAlertsArgs, type AlertsCommand } from "./cli-alerts.ts";
import { usageLine, UsageError } from "../shared/cli-args.ts";
import { executeJournalCommand, parseJournalArgs, type JournalCommand } from "./cli-journal.ts";

/**
 * `renio journal …`, `renio budget …` and `renio alerts …`: validate the arguments, find the
 * target (cli-target.ts) and name it on `err`, then read through the relay's admin API or on
 * the store. Help goes to `out` (exit 0); a usage error is one line on `err` (exit 2), and in
 * both cases no config is read and nothing is contacted.
 */
export async function runStoreCommand(
  command: "journal" | "budget" | "alerts",
  args: string[],
  runtime: Runtime,
  out: (line: string) => void,
  err: (line: string) => void,
): Promise<number> {
  const usage = command === "journal" ? JOURNAL_USAGE : command === "budget" ? BUDGET_USAGE : ALERTS_USAGE;
  if (wantsHelp(args)) {
    out(usage);
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
  if (parsed.action.sub === "help") {
    out(usage);
    return 0;
  }
  const target = await announcedTarget(command, parsed.action.target, err);
  if (target.kind === "relay") {
    const call = adminCall(target.url, target.token);
    if (parsed.command === "journal") return await executeJournalCommand(parsed.action, relayJournal(call), out, err);
    if (parsed.command === "alerts") await executeAlertsCommand(parsed.action, relayAlerts(call), out);
    else await executeBudgetCommand(parsed.action, relayBudgets(call), undefined, out);
    return 0;
  }
  const { config } = target;
  const store = await openStore(config, runtime);
  try {
    if (parsed.command === "journal") return await executeJournalCommand(parsed.action, store, out, err);
    if (parsed.command === "alerts") await executeAlertsCommand(parsed.action, store, out);
    else {
      const settings = { budgets: config.budgets, defaultMode: config.budget.mode, currency: config.budget.currency };
      await executeBudgetCommand(parsed.action, storeBudgetReader(store, settings), store, out);
    }
    return 0;
  } finally {
    await store.close();
  }
}

/**
 * `renio budget(s) list|set|delete|pause|resume|check`: through a running relay's admin API
 * or on the configured store directly, by the targeting rule of cli-target.ts. A usage error or a body the admin rules refuse (400) exits
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
  const target = await announcedTarget(name, command.target, err);
  try {
    if (target.kind === "relay") return await executeBudgetAdminCommand(command, httpBudgetClient(target.url, target.token), out);
    const { config } = target;
    const store = await openStore(config, runtime);
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

/** The store `config` names, open. */
export function openStore(config: Config, runtime: Runtime): Promise<Store> {
  return createStore(config.storage, { durability: config.journal.durability, openSqlite: runtime.openSqlite });
}
