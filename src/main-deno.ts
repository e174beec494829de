import { runCli } from "./cli/cli-main.ts";
import { denoRuntime } from "./runtime/runtime-deno.ts";

Deno.exit(await runCli(Deno.args, denoRuntime));
