import process from "node:process";
import { ConfigError, formatProblem } from "../config/config-error.ts";
import { restartNeeded, withRestartOnly } from "../config/config-restart.ts";
import type { Config } from "../config/config-schema.ts";
import { checkSemantics } from "../config/config-semantics.ts";
import { adminTokensOf } from "../http/admin-auth.ts";
import type { Reload, ReloadOutcome } from "../http/admin-reload.ts";
import { createAdminRoutes } from "../http/admin-routes.ts";
import { dashboardRoutes } from "../http/dashboard-routes.ts";
import { createHttpHandler } from "../http/app.ts";
import { openLedger } from "../journal/open-ledger.ts";
import { createRelay } from "../relay/relay.ts";
import { createRelaySnapshot, type SnapshotCell } from "../relay/relay-snapshot.ts";
import type { RateClock } from "../relay/rate-limiter.ts";
import type { Runtime, Server } from "../runtime/runtime.ts";

/** A running relay. */
export interface RelayService {
  readonly server: Server;
  readonly url: string;
  /** The separate admin listener's URL, when `server.admin.port` is set. */
  readonly adminUrl: string | undefined;
  /** How many entries a previous process left unfinished (marked interrupted at startup). */
  readonly recovered: number;
  /** Re-reads the config (SIGHUP, `POST /admin/reload`); reloads run one at a time. */
  readonly reload: Reload;
  /** Graceful shutdown: stop accepting, let in-flight calls finish (up to the grace period), flush, close. */
  shutdown(): Promise<void>;
}

/** Options of {@link startRelayService}. */
export interface RelayServiceOptions {
  /** Reads and validates the config again (throws ConfigError); without it, reload is unavailable. */
  readonly loadConfig?: () => Promise<Config>;
  /** The rate limits' clock (tests inject one). */
  readonly clock?: RateClock;
}

/**
 * Wires config into a listening relay: the journal (see open-ledger.ts), the config snapshot
 * (providers, routing, keys, pricing: relay-snapshot.ts), HTTP on one listener, or two when the
 * admin routes listen apart.
 */
export async function startRelayService(config: Config, runtime: Runtime, options: RelayServiceOptions = {}): Promise<RelayService> {
  const { ledger, store, recovered, close: closeLedger } = await openLedger(config, runtime, { onError: reportJournalError });
  const snapshot: SnapshotCell = { current: createRelaySnapshot(config, runtime.upstreamFetch, options.clock) };
  let adminTokens = adminTokensOf(config.server);
  const relay = createRelay({ snapshot, ledger });

  /** Loads the file, refuses it with its problems, or swaps in the new snapshot (in one step: no call sees half of it). */
  const reloadOnce = async (loadConfig: () => Promise<Config>): Promise<ReloadOutcome> => {
    let next: Config;
    try {
      next = await loadConfig();
    } catch (error) {
      if (error instanceof ConfigError) return { reloaded: false, problems: error.problems.map(formatProblem) };
      throw error;
    }
    // Restart-only settings keep their running values; the rest must still make sense with them.
    const effective = withRestartOnly(next, config);
    const problems = checkSemantics(effective);
    if (problems.length > 0) return { reloaded: false, problems: problems.map(formatProblem) };
    const built = createRelaySnapshot(effective, runtime.upstreamFetch, options.clock);
    snapshot.current = built;
    adminTokens = adminTokensOf(effective.server);
    return { reloaded: true, needsRestart: restartNeeded(config, next) };
  };
  let reloads: Promise<unknown> = Promise.resolve();
  const loadConfig = options.loadConfig;
  const reload: Reload | undefined = loadConfig && (() => {
    const run = reloads.then(() => reloadOnce(loadConfig));
    reloads = run.catch(() => undefined);
    return run;
  });

  let accepting = true;
  const admin = createAdminRoutes({ tokens: () => adminTokens, config: () => snapshot.current.config, store, sync: () => ledger.flush(), reload });
  const dashboard = dashboardRoutes(() => adminTokens.length > 0);
  const apart = config.server.admin.port !== undefined;
  const server = await runtime.serve({
    hostname: config.server.host,
    port: config.server.port,
    fetch: createHttpHandler({ relay, ledger, accepting: () => accepting, admin: apart ? undefined : admin, dashboard }),
  });
  const adminServer = apart
    ? await runtime.serve({
        hostname: config.server.admin.host ?? config.server.host,
        port: config.server.admin.port!,
        fetch: createHttpHandler({ ledger, accepting: () => accepting, admin, dashboard }),
      }).catch(async (error: unknown) => {
        await server.stop();
        await closeLedger();
        throw error;
      })
    : undefined;
  return {
    server,
    url: urlOf(server),
    adminUrl: adminServer && urlOf(adminServer),
    recovered,
    reload: reload ?? (() => Promise.resolve({ reloaded: false, problems: ["this relay was not started from a config file (--config); there is nothing to reload"] })),
    async shutdown() {
      accepting = false;
      const graceMs = snapshot.current.config.server.shutdownGraceMs;
      const deadline = performance.now() + graceMs;
      const stopped = Promise.all([server.stop(), adminServer?.stop()]);
      await relay.drained(graceMs);
      await closeLedger();
      // A call has ended once its upstream has; its last bytes may still be on their way to the
      // client. The server's graceful stop waits for them (bounded by what is left of the grace period),
      // so the process does not exit under a response it is still writing.
      let timer: ReturnType<typeof setTimeout> | undefined;
      await Promise.race([stopped, new Promise<void>((resolve) => (timer = setTimeout(resolve, Math.max(0, deadline - performance.now()))))]);
      clearTimeout(timer);
    },
  };
}

function urlOf(server: Server): string {
  const host = server.hostname.includes(":") ? `[${server.hostname}]` : server.hostname;
  return `http://${host}:${server.port}`;
}

/** A failed admission-log write or database apply, on stderr (message only: no stack, no request data). */
function reportJournalError(error: unknown): void {
  process.stderr.write(`renio: journal: ${error instanceof Error ? error.message : String(error)}\n`);
}
