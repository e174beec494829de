import { runCli } from "./cli/cli-main.ts";
import { bunRuntime } from "./runtime/runtime-bun.ts";

process.exitCode = await runCli(process.argv.slice(2), bunRuntime);
process.exit();
