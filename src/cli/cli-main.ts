import { ConfigError, formatProblem } from "../config/config-error.ts";
import type { Runtime } from "../runtime/runtime.ts";
import { StoreOpenError } from "../storage/store-errors.ts";
import { runBenchCommand } from "../bench/bench-command.ts";
import { runPassthroughCommand } from "../bench/passthrough.ts";
import { runConfigCommand } from "./cli-config.ts";
import { HELP, PASSTHROUGH_USAGE, wantsHelp } from "./cli-help.ts";
import { runMockCommand } from "./cli-mock.ts";
import { runPricesCommand } from "./cli-prices.ts";
import { runServeCommand, UsageError } from "./cli-serve.ts";
import { runStoreCommand } from "./cli-store.ts";

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
        return await runServeCommand(rest, runtime, out);
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
      case "journal":
      case "budget":
        return await runStoreCommand(command, rest, runtime, out, err);
      case undefined:
      case "help":
      case "--help":
      case "-h":
        out(HELP);
        return command === undefined ? 2 : 0;
      case "version":
      case "--version":
        out(`renio ${VERSION} (${runtime.name} ${runtime.version})`);
        return 0;
      default:
        err(`renio: unknown command "${command}" (see renio --help)`);
        return 2;
    }
  } catch (error) {
    return reportFailure(error);
  }
}

function reportFailure(error: unknown): number {
  if (error instanceof ConfigError) {
    for (const problem of error.problems) err(`config: ${formatProblem(problem)}`);
    return 2;
  }
  if (error instanceof StoreOpenError) {
    err(`renio: storage: ${error.message}`);
    return 1;
  }
  const code = (error as { code?: string }).code;
  if (error instanceof UsageError || (typeof code === "string" && code.startsWith("ERR_PARSE_ARGS"))) {
    err(`renio: ${(error as Error).message} (see renio --help)`);
    return 2;
  }
  err(`renio: ${error instanceof Error ? error.message : String(error)}`);
  return 1;
}
