import { DEFAULT_CONFIG } from "../config/default-config.ts";
import { loadConfigFile, validateConfig } from "../config/config-load.ts";
import type { Runtime } from "../runtime/runtime.ts";
import { createStore } from "../storage/store-open.ts";
import { runBudgetCommand } from "./cli-budget.ts";
import { runJournalCommand } from "./cli-journal.ts";

/** `renio journal …` and `renio budget …`: open the configured store, run, close. */
export async function runStoreCommand(command: "journal" | "budget", args: string[], runtime: Runtime, out: (line: string) => void): Promise<number> {
  const { configPath, rest } = takeConfigFlag(args);
  const config = configPath === undefined ? validateConfig(structuredClone(DEFAULT_CONFIG)) : await loadConfigFile(configPath);
  const store = await createStore(config.storage, { durability: config.journal.durability, openSqlite: runtime.openSqlite });
  try {
    return command === "journal" ? await runJournalCommand(rest, store, out) : await runBudgetCommand(rest, store, config.budgets, out);
  } finally {
    await store.close();
  }
}

/** Splits `--config FILE` / `--config=FILE` out of the arguments. */
function takeConfigFlag(args: string[]): { configPath: string | undefined; rest: string[] } {
  const rest: string[] = [];
  let configPath: string | undefined;
  for (let i = 0; i < args.length; i++) {
    const arg = args[i]!;
    if (arg === "--config") configPath = args[++i];
    else if (arg.startsWith("--config=")) configPath = arg.slice("--config=".length);
    else rest.push(arg);
  }
  return { configPath, rest };
}
