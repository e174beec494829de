import process from "node:process";
import { z } from "zod";
import { ConfigError, formatProblem } from "../config/config-error.ts";
import { CONFIG_ENV, envValue } from "../config/config-overrides.ts";
import { resolveConfig } from "../config/config-resolve.ts";
import { configSchema } from "../config/config-schema.ts";
import { badSubcommand, parseOptions, UsageError } from "../shared/cli-args.ts";
import { CONFIG_USAGE, wantsHelp } from "./cli-help.ts";

/** `renio config check [FILE]` (default `RENIO_CONFIG`; environment overrides applied, each setting's source shown) and `renio config schema` (`--help`: usage, exit 0); throws {@link UsageError} on a bad command line. */
export async function runConfigCommand(args: string[], out: (line: string) => void, err: (line: string) => void): Promise<number> {
  if (wantsHelp(args)) {
    out(CONFIG_USAGE);
    return 0;
  }
  const [sub, ...rest] = args;
  if (sub === "schema") {
    parseOptions(rest, {});
    out(JSON.stringify(z.toJSONSchema(configSchema, { io: "input" }), null, 2));
    return 0;
  }
  if (sub !== "check") throw badSubcommand(sub, ["check", "schema"]);
  const [given] = parseOptions(rest, {}, 1).positionals;
  if (given === undefined && envValue(process.env, CONFIG_ENV) === undefined) throw new UsageError(`check needs a FILE (or ${CONFIG_ENV})`);
  try {
    const { config, file, sources } = await resolveConfig({ file: given, env: process.env });
    out(`${file}: ok (${config.providers.size} providers, ${config.models.size} models, ${config.keys.length} keys, ${config.budgets.length} budgets)`);
    const width = Math.max(...sources.map((source) => source.setting.length));
    const shownWidth = Math.max(...sources.map((source) => source.shown.length));
    for (const { setting, shown, from } of sources) out(`  ${setting.padEnd(width)}  ${shown.padEnd(shownWidth)}  from ${from}`);
    return 0;
  } catch (error) {
    if (!(error instanceof ConfigError)) throw error;
    for (const problem of error.problems) err(formatProblem(problem));
    return 2;
  }
}
