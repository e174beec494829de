import { readFile } from "node:fs/promises";
import { ConfigSyntaxError, type ConfigDocument } from "./config-document.ts";
import { ConfigError, joinPath, type ConfigProblem } from "./config-error.ts";
import { applyOverrides, overrideAt, type ConfigOverride } from "./config-overrides.ts";
import { configSchema, type Config } from "./config-schema.ts";
import { checkSemantics } from "./config-semantics.ts";
import { interpolateEnv } from "./env-interpolation.ts";
import { parseJsoncDocument } from "./jsonc.ts";
import { parseYamlDocument } from "./yaml.ts";
import { protoKeyProblems } from "./schema-maps.ts";
import { issueProblems } from "./config-issues.ts";

type Env = Readonly<Record<string, string | undefined>>;

/** The languages a config file may be written in. */
export type ConfigFormat = "jsonc" | "yaml";

/** A file's config language by its name: `.yaml` and `.yml` are YAML, anything else JSON(C). */
export function configFormatOf(path: string): ConfigFormat {
  return /\.ya?ml$/i.test(path) ? "yaml" : "jsonc";
}

/**
 * Reads, interpolates and validates a config file (YAML for `.yaml`/`.yml`, else JSONC), with
 * `overrides` (flags, environment) applied over it. Throws ConfigError listing every problem,
 * each at `path:line:column` (or at the override that set the value).
 */
export async function loadConfigFile(path: string, env: Env = process.env, overrides: readonly ConfigOverride[] = []): Promise<Config> {
  return validateDocument(await readConfigDocument(path), path, env, overrides);
}

/** Reads and parses a config file; throws ConfigError when it cannot be read or does not parse. */
export async function readConfigDocument(path: string): Promise<ConfigDocument> {
  let text: string;
  try {
    text = await readFile(path, "utf8");
  } catch (error) {
    const code = (error as { code?: string }).code;
    throw new ConfigError([{ path: [], message: `cannot read ${path}: ${code === "ENOENT" ? "no such file" : code ?? "unreadable"}` }]);
  }
  return parseDocumentText(text, configFormatOf(path), path);
}

/**
 * Parses config text (JSON or JSONC unless `format` says YAML). Throws ConfigError listing every
 * problem, each located at `source:line:column` (`line:column` without a source).
 */
export function parseConfigText(text: string, env: Env = process.env, source?: string, format: ConfigFormat = source === undefined ? "jsonc" : configFormatOf(source)): Config {
  return validateDocument(parseDocumentText(text, format, source), source, env, []);
}

/** Validates a parsed document with `overrides` applied, locating each problem in its text. */
export function validateDocument(document: ConfigDocument, source: string | undefined, env: Env, overrides: readonly ConfigOverride[]): Config {
  return validateConfig(document.value, env, (path) => at(source, document.locate(path)), overrides);
}

function parseDocumentText(text: string, format: ConfigFormat, source: string | undefined): ConfigDocument {
  try {
    return format === "yaml" ? parseYamlDocument(text) : parseJsoncDocument(text);
  } catch (error) {
    if (!(error instanceof ConfigSyntaxError)) throw error;
    throw new ConfigError([{ path: [], message: `invalid ${error.language}: ${error.reason}`, at: at(source, error.position) }]);
  }
}

function at(source: string | undefined, { line, column }: { line: number; column: number }): string {
  return [source, line, column].filter((part) => part !== undefined).join(":");
}

/**
 * Validates an already parsed config value, `overrides` applied in order (after `${VAR}`
 * interpolation, so an override's value is taken as it is). Throws ConfigError listing every
 * problem, one per problem (a value referencing an unset variable gets that message only): one
 * in an overridden value is located at the override (`RENIO_HOST`), the others by `locate`
 * when the value was read from a text.
 */
export function validateConfig(
  raw: unknown,
  env: Env = process.env,
  locate?: (path: ReadonlyArray<PropertyKey>) => string,
  overrides: readonly ConfigOverride[] = [],
): Config {
  const interpolated = interpolateEnv(raw, env);
  const problems: ConfigProblem[] = [...interpolated.problems, ...protoKeyProblems(interpolated.value)];
  const report = (problem: ConfigProblem) => {
    if (!interpolated.unresolvedPaths.has(joinPath(problem.path))) problems.push(problem);
  };
  const fail = (): never => {
    throw new ConfigError(problems.map((problem) => ({ ...problem, at: overrideAt(overrides, problem.path)?.from ?? locate?.(problem.path) })));
  };
  const parsed = configSchema.safeParse(applyOverrides(interpolated.value, overrides));
  if (!parsed.success) {
    // An unknown key is a problem of its own, whatever its value; the others unless an unset variable made them.
    const { unknownKeys, others } = issueProblems(parsed.error.issues, configSchema, interpolated.value);
    problems.push(...unknownKeys);
    others.forEach(report);
    return fail();
  }
  checkSemantics(parsed.data).forEach(report);
  if (problems.length > 0) fail();
  return parsed.data;
}
