import process from "node:process";
import type { Config } from "../config/config-schema.ts";
import { createAdminRoutes } from "../http/admin-routes.ts";
import { createHttpHandler } from "../http/app.ts";
import { openLedger } from "../journal/open-ledger.ts";
import { createProviders } from "../providers/provider-registry.ts";
import { createCallPricing } from "../relay/call-pricing.ts";
import { openRelayKeys, type RelayKeys } from "../relay/relay-keys.ts";
import { createModelRouter } from "../relay/model-router.ts";
import { createRelay } from "../relay/relay.ts";
import type { Runtime, Server } from "../runtime/runtime.ts";

/** A running relay. */
export interface RelayService {
  readonly server: Server;
  readonly url: string;
  /** How many entries a previous process left unfinished (marked interrupted at startup). */
  readonly recovered: number;
  /** Graceful shutdown: stop accepting, let in-flight calls finish (up to the grace period), flush, close. */
  shutdown(): Promise<void>;
}

/** Options of {@link startRelayService}. */
export interface RelayServiceOptions {
  /** Epoch ms now, for key expiry and rotation grace periods (tests drive it). */
  readonly clock?: () => number;
}

/** The admin actor while there is one admin token: its id. */
const ADMIN_ACTOR = "admin";

/**
 * Wires config into a listening relay: the journal (see open-ledger.ts), the keyring (config
 * keys and the store's: relay-keys.ts), providers, routing, pricing, HTTP.
 */
export async function startRelayService(config: Config, runtime: Runtime, options: RelayServiceOptions = {}): Promise<RelayService> {
  const { ledger, store, recovered, close: closeLedger } = await openLedger(config, runtime, { onError: reportJournalError });
  let keys: RelayKeys;
  try {
    keys = await openRelayKeys(config, store, { clock: options.clock, onError: reportKeysError });
  } catch (error) {
    await closeLedger();
    throw error;
  }
  const providers = createProviders(config, fetch);
  const router = createModelRouter(config, providers);
  const relay = createRelay({ config, keyring: keys.keyring, router, pricing: createCallPricing(config), ledger });

  let accepting = true;
  const handler = createHttpHandler({
    relay,
    router,
    ledger,
    accepting: () => accepting,
    admin:
      config.server.adminToken === undefined || store === undefined
        ? undefined
        : createAdminRoutes({
            store,
            sync: () => ledger.flush(),
            token: config.server.adminToken,
            budgets: config.budgets,
            defaultMode: config.budget.mode,
            keys: keys.admin && { keys: keys.admin, actorOf: () => ADMIN_ACTOR },
            audit: store,
          }),
  });
  const server = await runtime.serve({
    hostname: config.server.host,
    port: config.server.port,
    fetch: handler,
  });
  const host = server.hostname.includes(":") ? `[${server.hostname}]` : server.hostname;
  return {
    server,
    url: `http://${host}:${server.port}`,
    recovered,
    async shutdown() {
      accepting = false;
      const deadline = performance.now() + config.server.shutdownGraceMs;
      const stopped = server.stop();
      await relay.drained(config.server.shutdownGraceMs);
      keys.stop();
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

/** A failed admission-log write or database apply, on stderr (message only: no stack, no request data). */
function reportJournalError(error: unknown): void {
  process.stderr.write(`renio: journal: ${error instanceof Error ? error.message : String(error)}\n`);
}

/** Polls for changed keys failing (the keyring keeps the keys it has), or (null) working again, on stderr. */
function reportKeysError(error: unknown | null): void {
  if (error === null) process.stderr.write("renio: keys: refreshing stored keys again\n");
  else process.stderr.write(`renio: keys: cannot refresh stored keys (retrying every server.keyRefreshMs): ${error instanceof Error ? error.message : String(error)}\n`);
}
