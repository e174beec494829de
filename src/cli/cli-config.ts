import { z } from "zod";
import { ConfigError, formatProblem } from "../config/config-error.ts";
import { loadConfigFile } from "../config/config-load.ts";
import { configSchema } from "../config/config-schema.ts";
import { badSubcommand, parseOptions, UsageError } from "./cli-args.ts";
import { CONFIG_USAGE, wantsHelp } from "./cli-help.ts";

/** `renio config check FILE` and `renio config schema` (`--help`: usage, exit 0); throws {@link UsageError} on a bad command line. */
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
  if (sub !== "check") throw badSubcommand(sub);
  const [file] = parseOptions(rest, {}, 1).positionals;
  if (file === undefined) throw new UsageError("check needs a FILE");
  try {
    const config = await loadConfigFile(file);
    out(`${file}: ok (${Object.keys(config.providers).length} providers, ${Object.keys(config.models).length} models, ${config.keys.length} keys, ${config.budgets.length} budgets)`);
    return 0;
  } catch (error) {
    if (!(error instanceof ConfigError)) throw error;
    for (const problem of error.problems) err(formatProblem(problem));
    return 2;
  }
}
