import { ConfigError, joinPath, type ConfigProblem } from "./config-error.ts";
import { readConfigDocument, validateConfig, validateDocument } from "./config-load.ts";
import { CONFIG_ENV, envOverrides, envValue, overrideAt, OVERRIDABLE_SETTINGS, type ConfigOverride } from "./config-overrides.ts";
import type { Config } from "./config-schema.ts";
import { DEFAULT_CONFIG } from "./default-config.ts";
import { ownValue } from "../shared/own-keys.ts";

type Env = Readonly<Record<string, string | undefined>>;

/** What a command was given to find its config. */
export interface ConfigRequest {
  /** `--config FILE` (or `renio config check FILE`); absent: `RENIO_CONFIG`, else the embedded default. */
  readonly file?: string | undefined;
  /** Settings given as flags; they win over the environment. */
  readonly flags?: readonly ConfigOverride[];
  readonly env: Env;
}

/** Where one setting's value came from. */
export interface SettingSource {
  /** Dotted config path: `server.port`. */
  readonly setting: string;
  /** The value as shown (`(set)` for a secret; when it has none, what that means). */
  readonly shown: string;
  /** `--port`, `RENIO_PORT`, the config file's path, `embedded default` or `default`. */
  readonly from: string;
}

/** A config resolved from its layers: flag > environment > config file > default. */
export interface ResolvedConfig {
  readonly config: Config;
  /** The config file read; undefined when the embedded default is used. */
  readonly file: string | undefined;
  /** For every setting the environment can override, where its value came from. */
  readonly sources: readonly SettingSource[];
}

/**
 * Loads the config a command runs with: the file from `--config`, else `RENIO_CONFIG`, else the
 * embedded default; then the environment overrides (`RENIO_HOST`, `RENIO_PORT`, …), then the
 * flags. Throws ConfigError listing every problem, each at the file position or the variable or
 * flag that gave the value (`RENIO_PORT: must be an integer from 0 to 65535, got "abc"`).
 */
export async function resolveConfig(request: ConfigRequest): Promise<ResolvedConfig> {
  const problems: ConfigProblem[] = [];
  const overrides = [...envOverrides(request.env, problems), ...(request.flags ?? [])];
  const fromEnv = request.file === undefined ? envValue(request.env, CONFIG_ENV) : undefined;
  const file = request.file ?? fromEnv;
  const withEnvProblems = (error: unknown): never => {
    if (error instanceof ConfigError && problems.length > 0) throw new ConfigError([...problems, ...error.problems]);
    throw error;
  };
  let raw: unknown;
  let config: Config;
  try {
    if (file === undefined) {
      raw = structuredClone(DEFAULT_CONFIG);
      config = validateConfig(raw, request.env, undefined, overrides);
    } else {
      const document = await readConfigDocument(file).catch((error: unknown) => {
        throw fromEnv !== undefined && error instanceof ConfigError ? new ConfigError(error.problems.map((problem) => ({ ...problem, at: problem.at ?? CONFIG_ENV }))) : error;
      });
      raw = document.value;
      config = validateDocument(document, file, request.env, overrides);
    }
  } catch (error) {
    return withEnvProblems(error);
  }
  if (problems.length > 0) throw new ConfigError(problems);
  const sources = OVERRIDABLE_SETTINGS.map(({ path, secret, unset }): SettingSource => {
    const value = valueAt(config, path);
    return {
      setting: joinPath(path),
      shown: value === undefined ? (unset ?? "(unset)") : secret === true ? "(set)" : String(value),
      from: overrideAt(overrides, path)?.from ?? (valueAt(raw, path) !== undefined ? (file ?? "embedded default") : "default"),
    };
  });
  return { config, file, sources };
}

function valueAt(value: unknown, path: readonly string[]): unknown {
  let node = value;
  for (const part of path) {
    if (node === null || typeof node !== "object") return undefined;
    node = ownValue(node as Record<string, unknown>, part);
  }
  return node;
}
