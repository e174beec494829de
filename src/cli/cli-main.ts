import { ConfigError, formatProblem } from "../config/config-error.ts";
import type { Runtime } from "../runtime/runtime.ts";
import { StoreOpenError } from "../shared/store-open-error.ts";
import { runBenchCommand } from "../bench/bench-command.ts";
import { runPassthroughCommand } from "../bench/passthrough.ts";
import { parseOptions, usageLine, UsageError } from "../shared/cli-args.ts";
import { didYouMean } from "../shared/did-you-mean.ts";
import { runConfigCommand } from "./cli-config.ts";
import { runAdminCommand } from "./cli-keys.ts";
import { HELP, PASSTHROUGH_USAGE, wantsHelp } from "./cli-help.ts";
import { runMockCommand } from "./cli-mock.ts";
import { runPricesCommand } from "./cli-prices.ts";
import { runServeCommand } from "./cli-serve.ts";
import { isBudgetAdminLine } from "./cli-budgets.ts";
import { runBudgetAdminCommand, runStoreCommand } from "./cli-store.ts";

/** The commands `runCli` knows, for "did you mean". */
const COMMANDS = ["serve", "mock", "bench", "passthrough", "config", "prices", "keys", "audit", "journal", "alerts", "budget", "budgets", "help", "version"] as const;

/** Renio's version, shown by --version and stored with bench results. */
export const VERSION = "0.1.0";

const out = (line: string) => void process.stdout.write(line + "\n");
const err = (line: string) => void process.stderr.write(line + "\n");

/** Dispatches a command line; returns the exit code. Errors print as one clear line, never a stack. */
export async function runCli(args: string[], runtime: Runtime): Promise<number> {
  const [command, ...rest] = args;
  try {
    switch (command) {
      case "serve":
        return await runServeCommand(rest, runtime, out, err);
      case "mock":
        return await runMockCommand(rest, runtime);
      case "bench":
        return await runBenchCommand(rest, runtime);
      case "passthrough":
        if (wantsHelp(rest)) {
          out(PASSTHROUGH_USAGE);
          return 0;
        }
        return await runPassthroughCommand(rest, runtime);
      case "config":
        return await runConfigCommand(rest, out, err);
      case "prices":
        return runPricesCommand(rest, out, err);
      case "keys":
      case "audit":
        return await runAdminCommand(command, rest, runtime, out, err);
      case "journal":
      case "alerts":
        return await runStoreCommand(command, rest, runtime, out, err);
      // `budgets` is the same command as `budget` (status and reconcile read the store; list, set, delete, pause and resume manage budgets).
      case "budget":
      case "budgets":
        if (!wantsHelp(rest) && isBudgetAdminLine(rest)) return await runBudgetAdminCommand(command, rest, runtime, out, err);
        return await runStoreCommand("budget", rest, runtime, out, err);
      case undefined:
        out(HELP);
        return 2;
      case "help":
      case "--help":
      case "-h": {
        const [topic] = wantsHelp(rest) ? [] : parseOptions(rest, {}, 1).positionals;
        if (topic !== undefined) return await runCli([topic, "--help"], runtime);
        out(HELP);
        return 0;
      }
      case "version":
      case "--version":
        parseOptions(rest, {});
        out(`renio ${VERSION} (${runtime.name} ${runtime.version})`);
        return 0;
      default:
        err(`renio: unknown command "${command}"${didYouMean(command, COMMANDS)} (see renio --help)`);
        return 2;
    }
  } catch (error) {
    return reportFailure(commandName(command), error);
  }
}

/** The name a command's errors go by: `help` for `--help` and `-h`, `version` for `--version`. */
function commandName(command: string | undefined): string {
  if (command === "--help" || command === "-h") return "help";
  return command === "--version" ? "version" : (command ?? "");
}

function reportFailure(command: string, error: unknown): number {
  if (error instanceof ConfigError) {
    for (const problem of error.problems) err(`config: ${formatProblem(problem)}`);
    return 2;
  }
  if (error instanceof StoreOpenError) {
    err(`renio: storage: ${error.message}`);
    return 1;
  }
  if (error instanceof UsageError) {
    err(usageLine(command, error));
    return 2;
  }
  err(`renio: ${error instanceof Error ? error.message : String(error)}`);
  return 1;
}
