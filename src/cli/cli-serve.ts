import process from "node:process";
import { DEV_KEY } from "../config/default-config.ts";
import type { ConfigOverride } from "../config/config-overrides.ts";
import { resolveConfig } from "../config/config-resolve.ts";
import { isLoopbackHost } from "../config/config-semantics.ts";
import type { Config } from "../config/config-schema.ts";
import { LOG_FORMATS, LOG_LEVELS } from "../config/logging-schema.ts";
import type { Runtime } from "../runtime/runtime.ts";
import { CONFIG_OPTION, parseOptions, UsageError } from "../shared/cli-args.ts";
import { SERVE_USAGE, wantsHelp } from "./cli-help.ts";
import { startRelayService, type RelayService } from "../app/relay-service.ts";
import { capacityNotes } from "./serve-capacity.ts";
import { openFileLimit } from "../runtime/open-files.ts";
import { CONFIG_ENV, envValue } from "../config/config-overrides.ts";
import { ADMIN_TOKEN_ENV, EMBEDDED_DEFAULT } from "./cli-target.ts";
import { embeddedAdminToken, type EmbeddedAdminToken } from "./serve-admin-token.ts";
import { signInLines } from "./serve-banner.ts";

const SERVE_OPTIONS = {
  config: CONFIG_OPTION,
  host: { type: "string" },
  port: { type: "integer", min: 0, max: 65_535 },
  "log-format": { type: "string", oneOf: LOG_FORMATS },
  "log-level": { type: "string", oneOf: LOG_LEVELS },
} as const;

/** Where each flag of `renio serve` goes in the config. */
const FLAG_SETTINGS = { host: ["server", "host"], port: ["server", "port"], "log-format": ["logging", "format"], "log-level": ["logging", "level"] } as const;

/**
 * `renio serve [--config FILE] [--host H] [--port N] [--log-format F] [--log-level L]`: runs until
 * SIGINT/SIGTERM; SIGHUP reloads (`--help`: usage, exit 0). Settings: flag > environment (`RENIO_CONFIG`,
 * `RENIO_HOST`, …) > config file > default. Without a config, or with `--config default`, the embedded
 * default runs with the dashboard and /metrics behind an admin token: `RENIO_ADMIN_TOKEN`, else one
 * kept beside its store (serve-admin-token.ts).
 */
export async function runServeCommand(args: string[], runtime: Runtime, out: (line: string) => void, err: (line: string) => void): Promise<number> {
  if (wantsHelp(args)) {
    out(SERVE_USAGE);
    return 0;
  }
  const { values } = parseOptions(args, SERVE_OPTIONS);
  // `--config default` (or RENIO_CONFIG=default) names the embedded default, as the store commands take it.
  const named = values.config ?? envValue(process.env, CONFIG_ENV);
  const env = named === EMBEDDED_DEFAULT ? { ...process.env, [CONFIG_ENV]: undefined } : process.env;
  const file = named === EMBEDDED_DEFAULT ? undefined : values.config;
  const flags: ConfigOverride[] = [];
  for (const [flag, path] of Object.entries(FLAG_SETTINGS)) {
    const value = values[flag as keyof typeof FLAG_SETTINGS];
    if (value !== undefined) flags.push({ path, value, from: `--${flag}` });
  }
  /** The file's config with the environment and flags over it (a reload reads it the same way). */
  const resolveServeConfig = async () => {
    const resolved = await resolveConfig({ file, flags, env });
    const config: Config = {
      ...resolved.config,
      logging: { ...resolved.config.logging, format: resolved.config.logging.format ?? (process.stdout.isTTY ? "text" : "json") },
    };
    return { resolved, config };
  };
  let { resolved, config } = await resolveServeConfig();
  const embedded = resolved.file === undefined;
  // The embedded default shows its dashboard and /metrics: behind RENIO_ADMIN_TOKEN, else a token kept beside its store.
  let generated: EmbeddedAdminToken | undefined;
  if (embedded && envValue(env, ADMIN_TOKEN_ENV) === undefined && config.storage.type === "sqlite" && isLoopbackHost(config.server.host)) {
    generated = embeddedAdminToken(config.storage.path);
    flags.push({ path: ["server", "adminToken"], value: generated.token, from: generated.file });
    ({ resolved, config } = await resolveServeConfig());
  }
  const loadConfig = async (): Promise<Config> => (await resolveServeConfig()).config;
  if (embedded && !isLoopbackHost(config.server.host)) {
    const from = resolved.sources.find((source) => source.setting === "server.host")?.from;
    throw new UsageError(
      `the embedded default and its development key only listen on loopback, not ${config.server.host}${from === undefined ? "" : ` (from ${from})`}; ` +
        "use --config (or RENIO_CONFIG) with your own keys",
    );
  }

  // Listen for signals before announcing the port: a SIGTERM right after "listening on" must shut down gracefully.
  const signalled = waitForSignal();
  const service = await startRelayService(config, runtime, embedded ? {} : { loadConfig });
  const stopReloading = reloadOnHangup(service, resolved.file ?? "the embedded default", out, err);
  out(`renio ${runtime.name} ${runtime.version}: listening on ${service.url}`);
  if (service.adminUrl !== undefined) out(`admin API at ${service.adminUrl} (admin routes are served only there)`);
  out(`storage: ${config.storage.type === "sqlite" ? `sqlite ${config.storage.path}` : "postgres"}, journal durability: ${config.journal.durability}`);
  out(`logging: ${config.logging.format}, level ${config.logging.level}`);
  const oneLoopOnly = config.server.eventLoops !== 1 && (runtime.loopWorker === undefined || process.platform !== "linux");
  out(`event loops: ${service.eventLoops}${oneLoopOnly ? ` (server.eventLoops ${config.server.eventLoops}: ${runtime.name} on ${process.platform} serves on one)` : ""}`);
  const capacity = capacityNotes(config.server, openFileLimit(), service.upstreamFetchLimit);
  out(capacity.line);
  for (const warning of capacity.warnings) err(warning);
  if (service.recovered > 0) out(`recovered: ${service.recovered} entries left unfinished by a previous process marked interrupted (see renio budget reconcile)`);
  for (const line of signInLines(service, config, embedded ? { generated, fromEnv: generated === undefined ? ADMIN_TOKEN_ENV : undefined } : undefined)) out(line);
  if (embedded) {
    out("embedded default: in-process mock provider, development key (loopback only). Try:");
    out(
      `curl ${service.url}/v1/chat/completions -H 'Authorization: Bearer ${DEV_KEY}' -H 'Content-Type: application/json' ` +
        `-d '{"model":"mock-gpt","messages":[{"role":"user","content":"Hello"}]}'`,
    );
  }
  await signalled;
  stopReloading();
  out("renio: shutting down (finishing in-flight calls, flushing the journal)");
  await service.shutdown();
  out("renio: stopped");
  return 0;
}

/**
 * Reloads the config on every SIGHUP: a confirmation on stdout; the settings that need a restart,
 * or the new file's problems (`FILE:LINE:COLUMN: path: message`, the running config stays), on
 * stderr. Returns what stops listening.
 */
function reloadOnHangup(service: RelayService, source: string, out: (line: string) => void, err: (line: string) => void): () => void {
  const onHangup = () => {
    service.reload("signal:SIGHUP").then(
      (outcome) => {
        if (!outcome.reloaded) {
          err(`renio: reload refused, still serving the running config: ${source} has ${outcome.problems.length} problem(s):`);
          for (const problem of outcome.problems) err(`config: ${problem}`);
          return;
        }
        out(`renio: reloaded ${source}`);
        if (outcome.needsRestart.length > 0) err(`renio: reload: changing ${outcome.needsRestart.join(", ")} needs a restart (running values kept)`);
      },
      (error: unknown) => err(`renio: reload failed, still serving the running config: ${error instanceof Error ? error.message : String(error)}`),
    );
  };
  process.on("SIGHUP", onHangup);
  return () => void process.off("SIGHUP", onHangup);
}

/** Resolves on the first SIGINT or SIGTERM. */
export function waitForSignal(): Promise<string> {
  return new Promise((resolve) => {
    const on = (signal: string) => {
      process.off("SIGINT", onInt);
      process.off("SIGTERM", onTerm);
      resolve(signal);
    };
    const onInt = () => on("SIGINT");
    const onTerm = () => on("SIGTERM");
    process.on("SIGINT", onInt);
    process.on("SIGTERM", onTerm);
  });
}
