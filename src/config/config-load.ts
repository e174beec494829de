import { readFile } from "node:fs/promises";
import { ConfigError, joinPath, type ConfigProblem } from "./config-error.ts";
import { configSchema, type Config } from "./config-schema.ts";
import { checkSemantics } from "./config-semantics.ts";
import { interpolateEnv } from "./env-interpolation.ts";
import { JsoncSyntaxError, parseJsoncDocument, type JsoncDocument } from "./jsonc.ts";

type Env = Readonly<Record<string, string | undefined>>;

/** Reads, interpolates and validates a config file. Throws ConfigError listing every problem, each at `path:line:column`. */
export async function loadConfigFile(path: string, env: Env = process.env): Promise<Config> {
  let text: string;
  try {
    text = await readFile(path, "utf8");
  } catch (error) {
    const code = (error as { code?: string }).code;
    throw new ConfigError([{ path: [], message: `cannot read ${path}: ${code === "ENOENT" ? "no such file" : code ?? "unreadable"}` }]);
  }
  return parseConfigText(text, env, path);
}

/**
 * Parses config text (JSON or JSONC). Throws ConfigError listing every problem, each located
 * at `source:line:column` (`line:column` without a source).
 */
export function parseConfigText(text: string, env: Env = process.env, source?: string): Config {
  const at = (line: number, column: number) => [source, line, column].filter((part) => part !== undefined).join(":");
  let document: JsoncDocument;
  try {
    document = parseJsoncDocument(text);
  } catch (error) {
    if (!(error instanceof JsoncSyntaxError)) throw error;
    throw new ConfigError([{ path: [], message: `invalid JSON: ${error.reason}`, at: at(error.position.line, error.position.column) }]);
  }
  return validateConfig(document.value, env, (path) => {
    const { line, column } = document.locate(path);
    return at(line, column);
  });
}

/**
 * Validates an already parsed config value. Throws ConfigError listing every problem, one per
 * problem (a value referencing an unset variable gets that message only), located by
 * `locate` when the value was read from a text.
 */
export function validateConfig(raw: unknown, env: Env = process.env, locate?: (path: ReadonlyArray<PropertyKey>) => string): Config {
  const interpolated = interpolateEnv(raw, env);
  const problems: ConfigProblem[] = [...interpolated.problems];
  const report = (problem: ConfigProblem) => {
    if (!interpolated.unresolvedPaths.has(joinPath(problem.path))) problems.push(problem);
  };
  const fail = (): never => {
    throw new ConfigError(locate === undefined ? problems : problems.map((problem) => ({ ...problem, at: locate(problem.path) })));
  };
  const parsed = configSchema.safeParse(interpolated.value);
  if (!parsed.success) {
    for (const issue of parsed.error.issues) {
      if (issue.code === "unrecognized_keys") {
        // An unknown key is a problem of its own, whatever its value.
        for (const key of issue.keys) problems.push({ path: [...issue.path, key], message: "unknown key" });
      } else {
        report({ path: issue.path, message: issue.message });
      }
    }
    return fail();
  }
  checkSemantics(parsed.data).forEach(report);
  if (problems.length > 0) fail();
  return parsed.data;
}
