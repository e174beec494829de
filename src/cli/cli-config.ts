import { z } from "zod";
import { ConfigError, formatProblem } from "../config/config-error.ts";
import { loadConfigFile } from "../config/config-load.ts";
import { configSchema } from "../config/config-schema.ts";

/** `renio config check FILE` and `renio config schema`. */
export async function runConfigCommand(args: string[], out: (line: string) => void, err: (line: string) => void): Promise<number> {
  const [sub, file, ...rest] = args;
  if (sub === "schema" && file === undefined) {
    out(JSON.stringify(z.toJSONSchema(configSchema, { io: "input", unrepresentable: "any" }), null, 2));
    return 0;
  }
  if (sub === "check" && file !== undefined && rest.length === 0) {
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
  err("usage: renio config check FILE | renio config schema");
  return 2;
}
