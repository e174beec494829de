import { runCli } from "./cli/cli-main.ts";
import { restartWithEngineOptions } from "./runtime/engine-options-bun.ts";
import { bunRuntime } from "./runtime/runtime-bun.ts";

restartWithEngineOptions(process.argv.slice(2));
process.exitCode = await runCli(process.argv.slice(2), bunRuntime);
process.exit();
