import { existsSync } from "node:fs";
import { join, resolve } from "node:path";
import process from "node:process";
import { CONFIG_ENV, envValue } from "../config/config-overrides.ts";
import { resolveConfig } from "../config/config-resolve.ts";
import type { Config, StorageConfig } from "../config/config-schema.ts";
import { CONFIG_OPTION, UsageError } from "../shared/cli-args.ts";

type Env = Readonly<Record<string, string | undefined>>;

/** `--url URL` and `--config FILE`: the options of every command that reads or writes a relay's data. */
export const TARGET_OPTIONS = { url: { type: "string", valueName: "a URL" }, config: CONFIG_OPTION } as const;

/** The environment variable naming a running relay, as `--url` does. */
export const URL_ENV = "RENIO_URL";

/** The environment variable holding the admin token for a relay target. */
export const ADMIN_TOKEN_ENV = "RENIO_ADMIN_TOKEN";

/** `--config default`: the embedded default's store, as `renio serve` without a config uses it in the working folder. */
export const EMBEDDED_DEFAULT = "default";

/** Config files in the working folder that count as the target when nothing else names one, in this order. */
export const WORKING_FOLDER_CONFIGS = ["renio.yaml", "renio.yml", "renio.jsonc", "renio.json"] as const;

/** The one line a command without a target prints. */
export const TARGET_NEEDED =
  `needs a target: --url URL or ${URL_ENV} (a running relay; admin token in ${ADMIN_TOKEN_ENV}), or --config FILE or ${CONFIG_ENV} (its store; ` +
  `"${EMBEDDED_DEFAULT}" for the embedded default's), or a ${WORKING_FOLDER_CONFIGS[0]} in the working folder`;

/** `--url` and `--config` as given on a command line. */
export interface TargetFlags {
  readonly url: string | undefined;
  readonly config: string | undefined;
}

/** The `--url` and `--config` of parsed option values. */
export function targetFlags(values: { readonly url?: string | undefined; readonly config?: string | undefined }): TargetFlags {
  return { url: values.url, config: values.config };
}

/** Where a command acts: a running relay through its admin API, or the store of a config. */
export type CliTarget =
  | { readonly kind: "relay"; readonly url: string; readonly token: string; readonly from: string }
  | { readonly kind: "store"; readonly config: Config; readonly file: string | undefined; readonly from: string };

/**
 * The target of a command line: `--url` or `--config` (not both), else `RENIO_URL` or
 * `RENIO_CONFIG` (not both), else the one config file of {@link WORKING_FOLDER_CONFIGS} in `cwd`;
 * with none, a {@link UsageError} of {@link TARGET_NEEDED}. Nothing is guessed: a store is opened
 * only when a config names it, and the embedded default's only when asked for by name (its SQLite
 * file must exist: `renio serve` made it).
 */
export async function resolveTarget(given: TargetFlags, env: Env = process.env, cwd = process.cwd()): Promise<CliTarget> {
  if (given.url !== undefined && given.config !== undefined) throw new UsageError("give --url (a running relay) or --config (its store), not both");
  if (given.url !== undefined) return relayTarget(given.url, "--url", env);
  if (given.config !== undefined) return storeTarget(given.config, "--config", env, cwd);
  const url = envValue(env, URL_ENV);
  const config = envValue(env, CONFIG_ENV);
  if (url !== undefined && config !== undefined) throw new UsageError(`${URL_ENV} and ${CONFIG_ENV} are both set: give --url or --config to choose`);
  if (url !== undefined) return relayTarget(url, URL_ENV, env);
  if (config !== undefined) return storeTarget(config, CONFIG_ENV, env, cwd);
  const found = WORKING_FOLDER_CONFIGS.filter((name) => existsSync(join(cwd, name)));
  if (found.length > 1) throw new UsageError(`the working folder holds ${found.join(" and ")}: give --config to choose`);
  if (found.length === 1) return storeTarget(join(cwd, found[0]!), "the working folder", env, cwd);
  throw new UsageError(TARGET_NEEDED);
}

/** The target of `flags` ({@link resolveTarget}), told on `err` as `renio COMMAND: relay …` or `renio COMMAND: store …` before anything is read or written. */
export async function announcedTarget(command: string, flags: TargetFlags, err: (line: string) => void): Promise<CliTarget> {
  const target = await resolveTarget(flags);
  err(`renio ${command}: ${targetLine(target)}`);
  return target;
}

/** What a command acted on, for stderr: the relay's URL, or the store (SQLite path, or PostgreSQL host and database, never a password) and where the config came from. */
export function targetLine(target: CliTarget): string {
  if (target.kind === "relay") return `relay ${target.url} (from ${target.from})`;
  const config = target.file === undefined ? "the embedded default" : `config ${target.file}`;
  return `store ${storeText(target.config.storage)} (${config}, from ${target.from})`;
}

/** A store for people: `SQLite /abs/path.db` or `PostgreSQL host:port/db`. */
export function storeText(storage: StorageConfig): string {
  if (storage.type === "sqlite") return `SQLite ${resolve(storage.path)}`;
  try {
    const url = new URL(storage.url);
    return `PostgreSQL ${url.host}${url.pathname}`;
  } catch {
    return "PostgreSQL (unparsable URL)";
  }
}

function relayTarget(url: string, from: string, env: Env): CliTarget {
  if (!/^https?:\/\/[^/]/.test(url)) throw new UsageError(`${from} must be the relay's base URL such as http://127.0.0.1:8080, got "${url}"`);
  const token = envValue(env, ADMIN_TOKEN_ENV);
  if (token === undefined) throw new UsageError(`${from} needs the admin token in ${ADMIN_TOKEN_ENV}`);
  return { kind: "relay", url: url.replace(/\/+$/, ""), token, from };
}

async function storeTarget(file: string, from: string, env: Env, cwd: string): Promise<CliTarget> {
  if (file !== EMBEDDED_DEFAULT) {
    const { config, file: read } = await resolveConfig({ file, env });
    return { kind: "store", config, file: read, from };
  }
  const { config } = await resolveConfig({ env: { ...env, [CONFIG_ENV]: undefined } });
  const { storage } = config;
  if (storage.type === "sqlite" && !existsSync(resolve(cwd, storage.path))) {
    throw new UsageError(`the embedded default's store ${resolve(cwd, storage.path)} does not exist: run this in the folder \`renio serve\` ran in, or give --url`);
  }
  return { kind: "store", config, file: undefined, from };
}
