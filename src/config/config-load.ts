import { readFile } from "node:fs/promises";
import { ConfigError, joinPath, type ConfigProblem } from "./config-error.ts";
import { configSchema, type Config } from "./config-schema.ts";
import { checkSemantics } from "./config-semantics.ts";
import { interpolateEnv } from "./env-interpolation.ts";
import { parseJsonc } from "./jsonc.ts";

type Env = Readonly<Record<string, string | undefined>>;

/** Reads, interpolates and validates a config file. Throws ConfigError listing every problem. */
export async function loadConfigFile(path: string, env: Env = process.env): Promise<Config> {
  let text: string;
  try {
    text = await readFile(path, "utf8");
  } catch (error) {
    const code = (error as { code?: string }).code;
    throw new ConfigError([{ path: "", message: `cannot read ${path}: ${code === "ENOENT" ? "no such file" : code ?? "unreadable"}` }]);
  }
  return parseConfigText(text, env);
}

/** Parses config text (JSON or JSONC). Throws ConfigError listing every problem. */
export function parseConfigText(text: string, env: Env = process.env): Config {
  let raw: unknown;
  try {
    raw = parseJsonc(text);
  } catch (error) {
    throw new ConfigError([{ path: "", message: (error as Error).message }]);
  }
  return validateConfig(raw, env);
}

/**
 * Validates an already parsed config value. Throws ConfigError listing every problem, one
 * per problem: a value that references an unset variable gets that message only.
 */
export function validateConfig(raw: unknown, env: Env = process.env): Config {
  const interpolated = interpolateEnv(raw, env);
  const problems: ConfigProblem[] = [...interpolated.problems];
  const unresolved = interpolated.unresolvedPaths;
  const report = (problem: ConfigProblem) => {
    if (!unresolved.has(problem.path)) problems.push(problem);
  };
  const parsed = configSchema.safeParse(interpolated.value);
  if (!parsed.success) {
    for (const issue of parsed.error.issues) {
      const path = joinPath(issue.path);
      if (issue.code === "unrecognized_keys") {
        // An unknown key is a problem of its own, whatever its value.
        for (const key of issue.keys) problems.push({ path: path ? `${path}.${key}` : key, message: "unknown key" });
      } else {
        report({ path, message: issue.message });
      }
    }
    throw new ConfigError(problems);
  }
  checkSemantics(parsed.data).forEach(report);
  if (problems.length > 0) throw new ConfigError(problems);
  return parsed.data;
}
