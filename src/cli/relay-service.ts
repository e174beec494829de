import process from "node:process";
import type { Config } from "../config/config-schema.ts";
import { createAdminRoutes } from "../http/admin-routes.ts";
import { createHttpHandler } from "../http/app.ts";
import { openLedger } from "../journal/open-ledger.ts";
import { createProviders } from "../providers/provider-registry.ts";
import { createCallPricing } from "../relay/call-pricing.ts";
import { createKeyring } from "../relay/keyring.ts";
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

/** Wires config into a listening relay: the journal (see open-ledger.ts), providers, routing, pricing, HTTP. */
export async function startRelayService(config: Config, runtime: Runtime): Promise<RelayService> {
  const { ledger, store, recovered, close: closeLedger } = await openLedger(config, runtime, { onError: reportJournalError });
  const providers = createProviders(config, runtime.upstreamFetch);
  const router = createModelRouter(config, providers);
  const relay = createRelay({ config, keyring: createKeyring(config.keys), router, pricing: createCallPricing(config), ledger });

  let accepting = true;
  const handler = createHttpHandler({
    relay,
    router,
    ledger,
    accepting: () => accepting,
    admin: config.server.adminToken === undefined || store === undefined ? undefined : createAdminRoutes({ store, sync: () => ledger.flush(), token: config.server.adminToken, budgets: config.budgets, defaultMode: config.budget.mode, currency: config.budget.currency }),
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
      // While in-flight calls drain, the listener stays open: new calls get 503 shutting_down
      // (with retry-after) in their route's envelope and /readyz 503, so clients and load
      // balancers move on instead of meeting refused connections; /healthz stays 200.
      accepting = false;
      const deadline = performance.now() + config.server.shutdownGraceMs;
      await relay.drained(config.server.shutdownGraceMs);
      await closeLedger();
      // A call has ended once its upstream has; its last bytes may still be on their way to the
      // client. The server's graceful stop waits for them (bounded by what is left of the grace period),
      // so the process does not exit under a response it is still writing.
      const stopped = server.stop();
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
