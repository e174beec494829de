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
import { observers, type CallObserver } from "../relay/call-observer.ts";
import { createCallMetrics } from "../observe/call-metrics.ts";
import { createLogger, defaultLogOptions, type LogOptions } from "../observe/call-log.ts";
import { metricsRoute } from "../observe/metrics-route.ts";

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
  /** How calls are logged on stdout (default: JSON unless stdout is a terminal, level info); false: no call log. */
  readonly log?: LogOptions | false;
}

/** Wires config into a listening relay: the journal (see open-ledger.ts), providers, routing, pricing, metrics and the call log, HTTP. */
export async function startRelayService(config: Config, runtime: Runtime, options: RelayServiceOptions = {}): Promise<RelayService> {
  const { ledger, store, recovered, close: closeLedger } = await openLedger(config, runtime, { onError: reportJournalError });
  const providers = createProviders(config, runtime.upstreamFetch);
  const router = createModelRouter(config, providers);
  const calls = createCallMetrics({ perKeyLabels: config.metrics.perKeyLabels, currency: config.budget.currency });
  const watchers: CallObserver[] = [calls];
  const log = options.log ?? defaultLogOptions(process.stdout.isTTY === true);
  if (log !== false) watchers.push(createLogger(log, (line) => process.stdout.write(line)));
  const relay = createRelay({ config, keyring: createKeyring(config.keys), router, pricing: createCallPricing(config), ledger, observer: observers(watchers) });

  let accepting = true;
  const handler = createHttpHandler({
    relay,
    router,
    ledger,
    accepting: () => accepting,
    metrics: metricsRoute(config, calls, ledger, () => relay.inFlight),
    admin: config.server.adminToken === undefined || store === undefined ? undefined : createAdminRoutes({ store, sync: () => ledger.flush(), token: config.server.adminToken, budgets: config.budgets, defaultMode: config.budget.mode }),
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
