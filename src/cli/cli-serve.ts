import { DEFAULT_CONFIG, DEV_KEY } from "../config/default-config.ts";
import { loadConfigFile, validateConfig } from "../config/config-load.ts";
import { isLoopbackHost } from "../config/config-semantics.ts";
import type { Config } from "../config/config-schema.ts";
import type { Runtime } from "../runtime/runtime.ts";
import { CONFIG_OPTION, parseOptions, UsageError } from "./cli-args.ts";
import { SERVE_USAGE, wantsHelp } from "./cli-help.ts";
import { startRelayService, type RelayService } from "./relay-service.ts";

const SERVE_OPTIONS = { config: CONFIG_OPTION, host: { type: "string" }, port: { type: "integer", min: 0, max: 65_535 } } as const;

/**
 * `renio serve [--config FILE] [--host H] [--port N]`: runs until SIGINT/SIGTERM; SIGHUP
 * reloads FILE (`--help`: usage, exit 0).
 */
export async function runServeCommand(args: string[], runtime: Runtime, out: (line: string) => void, err: (line: string) => void): Promise<number> {
  if (wantsHelp(args)) {
    out(SERVE_USAGE);
    return 0;
  }
  const { values } = parseOptions(args, SERVE_OPTIONS);
  const embedded = values.config === undefined;
  /** The file's config with the command line's --host/--port over it (a reload reads it the same way). */
  const loadConfig = async (): Promise<Config> => {
    const base = embedded ? validateConfig(structuredClone(DEFAULT_CONFIG)) : await loadConfigFile(values.config!);
    const config: Config = {
      ...base,
      server: {
        ...base.server,
        host: values.host ?? base.server.host,
        port: values.port ?? base.server.port,
      },
    };
    if (values.host !== undefined) validateConfig(config);
    return config;
  };
  const config = await loadConfig();
  if (embedded && !isLoopbackHost(config.server.host)) {
    throw new UsageError(`the embedded default and its development key only listen on loopback, not ${config.server.host}; use --config with your own keys`);
  }

  // Listen for signals before announcing the port: a SIGTERM right after "listening on" must shut down gracefully.
  const signalled = waitForSignal();
  const service = await startRelayService(config, runtime, embedded ? {} : { loadConfig });
  const stopReloading = reloadOnHangup(service, values.config ?? "the embedded default", out, err);
  out(`renio ${runtime.name} ${runtime.version}: listening on ${service.url}`);
  if (service.adminUrl !== undefined) out(`admin API at ${service.adminUrl} (admin routes are served only there)`);
  out(`storage: ${config.storage.type === "sqlite" ? `sqlite ${config.storage.path}` : "postgres"}, journal durability: ${config.journal.durability}`);
  if (service.recovered > 0) out(`recovered: ${service.recovered} entries left unfinished by a previous process marked interrupted (see renio budget reconcile)`);
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
    service.reload().then(
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
