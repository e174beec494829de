import type { ConfigProblem } from "./config-error.ts";
import { LOG_FORMATS, LOG_LEVELS } from "./logging-schema.ts";
import { ownValue } from "../shared/own-keys.ts";

type Env = Readonly<Record<string, string | undefined>>;

/** One setting given outside the config file: by a flag (`--port`) or an environment variable (`RENIO_PORT`). */
export interface ConfigOverride {
  /** The setting, as a config path: `["server", "port"]`. */
  readonly path: readonly string[];
  readonly value: string | number;
  /** Where it was given: `--port`, `RENIO_PORT`; problems with the value are located there. */
  readonly from: string;
}

/** The environment variable that names the config file when `--config` is absent. */
export const CONFIG_ENV = "RENIO_CONFIG";

/** A setting operators may give as an environment variable (and, for `renio serve`, a flag). */
interface OverridableSetting {
  readonly path: readonly string[];
  readonly env: string;
  /** The value, or a message saying what was expected (never repeating a secret). */
  readonly parse: (text: string) => { readonly value: string | number } | { readonly problem: string };
  /** What having no value means, as `renio config check` shows it. */
  readonly unset?: string;
  /** Its value is never printed: `renio config check` shows only where it was set. */
  readonly secret?: boolean;
}

const HOST = /^(\[[0-9A-Fa-f:.]+\]|[0-9A-Fa-f:.]*:[0-9A-Fa-f:.]*|[A-Za-z0-9_.-]+)$/;

/** Every setting with an environment variable, in the order `renio config check` lists them. */
export const OVERRIDABLE_SETTINGS: readonly OverridableSetting[] = [
  {
    path: ["server", "host"],
    env: "RENIO_HOST",
    parse: (text) => (HOST.test(text) ? { value: text } : { problem: `must be a host name or an IP address, got ${JSON.stringify(text)}` }),
  },
  {
    path: ["server", "port"],
    env: "RENIO_PORT",
    parse: (text) => {
      const port = /^\d{1,5}$/.test(text) ? Number(text) : Number.NaN;
      return port <= 65_535 ? { value: port } : { problem: `must be an integer from 0 to 65535, got ${JSON.stringify(text)}` };
    },
  },
  {
    path: ["server", "adminToken"],
    env: "RENIO_ADMIN_TOKEN",
    secret: true,
    unset: "(unset: no /admin routes)",
    parse: (text) => (text.length >= 16 ? { value: text } : { problem: `must be at least 16 characters (it has ${text.length}; the value is not shown)` }),
  },
  { path: ["logging", "format"], env: "RENIO_LOG_FORMAT", parse: oneOf(LOG_FORMATS), unset: "(unset: json unless stdout is a terminal)" },
  { path: ["logging", "level"], env: "RENIO_LOG_LEVEL", parse: oneOf(LOG_LEVELS) },
];

function oneOf(choices: readonly string[]): OverridableSetting["parse"] {
  const expected = choices.length === 2 ? `${choices[0]} or ${choices[1]}` : `one of ${choices.join(", ")}`;
  return (text) => (choices.includes(text) ? { value: text } : { problem: `must be ${expected}, got ${JSON.stringify(text)}` });
}

/** A variable set to the empty string counts as unset (as `RENIO_PORT=` in a compose file means). */
export function envValue(env: Env, name: string): string | undefined {
  const value = ownValue(env, name);
  return value === undefined || value === "" ? undefined : value;
}

/**
 * The overrides the environment gives (`RENIO_HOST`, `RENIO_PORT`, …), each value checked; a bad
 * value is a problem located at its variable (`RENIO_PORT: must be an integer …`) and not applied.
 */
export function envOverrides(env: Env, problems: ConfigProblem[]): ConfigOverride[] {
  const overrides: ConfigOverride[] = [];
  for (const setting of OVERRIDABLE_SETTINGS) {
    const text = envValue(env, setting.env);
    if (text === undefined) continue;
    const parsed = setting.parse(text);
    if ("problem" in parsed) problems.push({ path: [], message: parsed.problem, at: setting.env });
    else overrides.push({ path: setting.path, value: parsed.value, from: setting.env });
  }
  return overrides;
}

/**
 * `raw` (a parsed config, before validation) with each override set in order, so a later one
 * wins; missing sections are created. A section that is not an object is left for validation
 * to report.
 */
export function applyOverrides(raw: unknown, overrides: readonly ConfigOverride[]): unknown {
  if (overrides.length === 0 || !isRecord(raw)) return raw;
  const root: Record<string, unknown> = { ...raw };
  for (const { path, value } of overrides) {
    let section = root;
    let applicable = true;
    for (const part of path.slice(0, -1)) {
      const next = ownValue(section, part) ?? {};
      if (!isRecord(next)) {
        applicable = false;
        break;
      }
      // plain-object: paths are Renio's own setting paths (OVERRIDABLE_SETTINGS, flags), never a key from outside
      section = section[part] = { ...next };
    }
    // plain-object: a path part of Renio's own settings
    if (applicable) section[path.at(-1)!] = value;
  }
  return root;
}

/** The override that set the value at `path` (or a value containing it), the last one winning. */
export function overrideAt(overrides: readonly ConfigOverride[], path: ReadonlyArray<PropertyKey>): ConfigOverride | undefined {
  return overrides.findLast((override) => override.path.length <= path.length && override.path.every((part, i) => path[i] === part));
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === "object" && !Array.isArray(value);
}
