import { resolve } from "node:path";
import process from "node:process";
import type { Config } from "../config/config-schema.ts";
import { createAdminRoutes } from "../http/admin-routes.ts";
import { createHttpHandler } from "../http/app.ts";
import { createSqlLedger } from "../journal/sql-ledger.ts";
import { createLedgerOff } from "../journal/ledger-off.ts";
import { openJournalLog } from "../journal/journal-log.ts";
import { admissionLogDir } from "../journal/log-segments.ts";
import { claimAdmissionLog, type LogClaim } from "../journal/log-claim.ts";
import { createLogLedger } from "../journal/log-ledger.ts";
import { replayAdmissionLog } from "../journal/log-replay.ts";
import { startRetention } from "../journal/journal-retention.ts";
import { createProviders } from "../providers/provider-registry.ts";
import { createCallPricing } from "../relay/call-pricing.ts";
import { createKeyring } from "../relay/keyring.ts";
import { createModelRouter } from "../relay/model-router.ts";
import { createRelay } from "../relay/relay.ts";
import type { Runtime, Server } from "../runtime/runtime.ts";
import { createStore } from "../storage/store-open.ts";
import { createThreadStore } from "../storage/store-thread.ts";
import { newEntryId } from "../shared/entry-id.ts";

/** How often a running relay recovers entries of relay instances that died meanwhile. */
const RECOVERY_SWEEP_MS = 30_000;

/** A running relay. */
export interface RelayService {
  readonly server: Server;
  readonly url: string;
  /** How many entries a previous process left unfinished (marked interrupted at startup). */
  readonly recovered: number;
  /** Graceful shutdown: stop accepting, let in-flight calls finish (up to the grace period), flush, close. */
  shutdown(): Promise<void>;
}

/** Wires config into a listening relay: store, journal, providers, routing, pricing, HTTP. */
export async function startRelayService(config: Config, runtime: Runtime): Promise<RelayService> {
  // This process's identity in the journal: recovery never touches the entries of a live instance.
  const instanceId = newEntryId();
  const durability = config.journal.durability;
  const store = config.journal.enabled
    ? config.storage.type === "sqlite"
      ? await createThreadStore(runtime.storeWorker(), config.storage, { durability, instanceId })
      : await createStore(config.storage, { durability, instanceId, openSqlite: runtime.openSqlite })
    : undefined;
  // A relay owning its SQLite file decides admissions in memory and logs them (see log-ledger.ts);
  // first, whatever the previous process logged but had not applied reaches the database.
  const databasePath = store && config.storage.type === "sqlite" ? resolve(config.storage.path) : undefined;
  const logDir = databasePath === undefined ? undefined : admissionLogDir(databasePath);
  let claim: LogClaim | undefined;
  if (store && databasePath && logDir) {
    try {
      claim = claimAdmissionLog(databasePath, runtime.openSqlite);
      await replayAdmissionLog(store, logDir);
    } catch (error) {
      claim?.release();
      await store.close();
      throw error;
    }
  }
  const recovered = store ? await store.recover(Date.now()) : 0;
  // Siblings sharing PostgreSQL may die while this one runs: sweep their unfinished entries.
  const sweep = store && !logDir ? setInterval(() => void store.recover(Date.now()).catch(() => undefined), RECOVERY_SWEEP_MS) : undefined;
  const ledger = !store
    ? createLedgerOff()
    : logDir
      ? createLogLedger(store, openJournalLog(logDir, durability), await store.budgetUsage(), { instanceId, onError: reportJournalError })
      : createSqlLedger(store);
  const providers = createProviders(config, fetch);
  const router = createModelRouter(config, providers);
  const relay = createRelay({ config, keyring: createKeyring(config.keys), router, pricing: createCallPricing(config), ledger });
  const retention = new AbortController();
  if (store && config.journal.retentionDays !== undefined) void startRetention(store, config.journal.retentionDays, retention.signal);

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
      retention.abort();
      clearInterval(sweep);
      const deadline = performance.now() + config.server.shutdownGraceMs;
      await relay.drained(config.server.shutdownGraceMs);
      await ledger.close();
      claim?.release();
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
