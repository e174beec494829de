import process from "node:process";
import { ConfigError, formatProblem } from "../config/config-error.ts";
import { restartNeeded, withRestartOnly } from "../config/config-restart.ts";
import { createBudgetCatalog, type StoredExtras } from "../budgets/budget-catalog.ts";
import { sumCacheCounts } from "../cache/response-cache.ts";
import type { Config } from "../config/config-schema.ts";
import { checkSemantics } from "../config/config-semantics.ts";
import { adminTokensOf } from "../http/admin/admin-auth.ts";
import type { Reload, ReloadOutcome } from "../http/admin/admin-reload.ts";
import { createHttpHandler, lastResortResponse } from "../http/app.ts";
import { openLedger } from "./open-ledger.ts";
import { createAdminSurface } from "./admin-surface.ts";
import { reportAlertError, reportBooksError, reportBudgetSyncError, reportJournalError, reportKeysError, reportQuarantined, reportTracingError } from "./relay-reports.ts";
import { watchBooks } from "../journal/books-watch.ts";
import { startBudgetSync, type BudgetSync } from "../budgets/budget-sync.ts";
import { openRelayKeys, type RelayKeys } from "../keys/relay-keys.ts";
import { startAlertDispatcher } from "../alerts/alert-dispatcher.ts";
import { alertRulesOf } from "../alerts/alert-rules.ts";
import { createRelay } from "../relay/relay.ts";
import { createRelaySnapshot, type SnapshotCell } from "../relay/relay-snapshot.ts";
import { RateStateBook } from "../limits/rate-state.ts";
import { openShared, type SharedServices } from "./open-shared.ts";
import { createTargetHealthBook } from "../routing/target-health.ts";
import { targetStatuses } from "../routing/target-status.ts";
import type { RateClock } from "../limits/rate-limiter.ts";
import { startTracing } from "../observe/tracing.ts";
import type { ExportStats } from "../observe/span-exporter.ts";
import type { Runtime, Server } from "../runtime/runtime.ts";
import { observers, type CallObserver } from "../observe/call-observer.ts";
import { createCallMetrics } from "../observe/call-metrics.ts";
import { GuardrailMetrics } from "../guardrails/guardrail-metrics.ts";
import { createLogger, defaultLogOptions, type LogOptions } from "../observe/call-log.ts";
import { createLineSink } from "../observe/line-sink.ts";
import { metricsRoute } from "../http/metrics-route.ts";
import { upstreamFetchOf, usesRuntimeFetch } from "./upstream-client.ts";
import { eventLoopCount, loopTotals, startEventLoops, type EventLoops } from "./loop-owner.ts";
import { createCallSlots } from "../relay/call-slots.ts";
import { watchLoopLag } from "../observe/loop-lag.ts";
import type { StoredBudget } from "../budgets/budget-definition.ts";
import type { LoopStats, StoredBudgets } from "./loop-messages.ts";

/** A running relay. */
export interface RelayService {
  readonly server: Server;
  readonly url: string;
  /** The separate admin listener's URL, when `server.admin.port` is set. */
  readonly adminUrl: string | undefined;
  /** How many entries a previous process left unfinished (marked interrupted at startup). */
  readonly recovered: number;
  /** The event loops serving HTTP (`server.eventLoops` as this runtime allows it). */
  readonly eventLoops: number;
  /** The in-flight cap of the runtime's fetch when calls may go through it (Bun's), else undefined. */
  readonly upstreamFetchLimit: number | undefined;
  /** Re-reads the config (SIGHUP, `POST /admin/reload`); reloads run one at a time. */
  readonly reload: Reload;
  /** Spans exported and dropped (undefined when tracing is off). */
  traceStats(): ExportStats | undefined;
  /** Graceful shutdown: stop accepting, let in-flight calls finish (up to the grace period), flush, close. */
  shutdown(): Promise<void>;
}

/** Options of {@link startRelayService}. */
export interface RelayServiceOptions {
  /** Reads and validates the config again (throws ConfigError); without it, reload is unavailable. */
  readonly loadConfig?: () => Promise<Config>;
  /** Epoch ms now, for rate limits, key expiry, rotation grace periods and target cooldowns (tests drive it). */
  readonly clock?: RateClock;
  /** Draws in [0, 1) for weighted routing and retry jitter (default Math.random; tests seed it). */
  readonly random?: () => number;
  /** How calls are logged on stdout (default: the config's `logging`, its format JSON unless stdout is a terminal); false: no call log. */
  readonly log?: LogOptions | false;
}

/**
 * Wires config into a listening relay: the journal (see open-ledger.ts), the config snapshot
 * (providers, routing, keys, pricing: relay-snapshot.ts), metrics and the call log, HTTP on one
 * listener, or two when the admin routes listen apart.
 */
export async function startRelayService(config: Config, runtime: Runtime, options: RelayServiceOptions = {}): Promise<RelayService> {
  // The budgets in force: the config's (replaced on reload) and the store's (kept current by budget-sync.ts).
  const catalog = createBudgetCatalog(config.budgets, config.budget.mode, config.teams);
  const { ledger, store, recovered, close: closeLedger } = await openLedger(config, runtime, { onError: reportJournalError, onQuarantine: reportQuarantined, budgetTerms: catalog.termsOf });
  // With more than one event loop, the others (app/loop-owner.ts) take every stored key and budget this one reads.
  const loopCount = eventLoopCount(config.server.eventLoops, runtime);
  let loops: EventLoops | undefined;
  let storedBudgets: StoredBudgets = { budgets: [], extras: undefined };
  const replaceBudgets = (budgets: readonly StoredBudget[], extras?: StoredExtras) => {
    catalog.replace(budgets, extras);
    storedBudgets = { budgets, extras };
    loops?.storedBudgets(storedBudgets);
  };
  let budgetSync: BudgetSync | undefined;
  let keys: RelayKeys;
  try {
    if (store) budgetSync = await startBudgetSync(store, { replace: replaceBudgets }, config.budget.storePollMs, reportBudgetSyncError);
    keys = await openRelayKeys(config, store, { clock: options.clock, onError: reportKeysError, onStoredKeys: (changed) => loops?.storedKeys(changed) });
  } catch (error) {
    budgetSync?.stop();
    await closeLedger();
    throw error;
  }
  // The upstream client is chosen at startup (changing it needs a restart); `auto` on Bun picks per call by the calls in flight.
  const upstreamFetch = upstreamFetchOf(runtime, config.server.upstreamClient, () => relay.inFlight);
  const upstreamFetchLimit = usesRuntimeFetch(runtime, config.server.upstreamClient) ? runtime.upstreamFetchLimit : undefined;
  // Cooldowns are per relay process: a reload keeps what the targets went through.
  const health = createTargetHealthBook();
  // So are the rate limits: a reload never refills a bucket (rate-state.ts).
  const rateState = new RateStateBook();
  // Redis, when configured: shared rate limits and the shared cache (open-shared.ts).
  let shared: SharedServices;
  try {
    shared = await openShared(config, runtime, () => snapshot.current.config.rateLimits.leaseMs);
  } catch (error) {
    budgetSync?.stop();
    keys.stop();
    await closeLedger();
    throw error;
  }
  const snapshotShared = { clock: options.clock, budgets: catalog, keyring: keys.keyring, health, rateState, sharedLimits: shared.limits, cache: shared.cache };
  const snapshot: SnapshotCell = { current: createRelaySnapshot(config, upstreamFetch, snapshotShared) };
  let adminTokens = adminTokensOf(config.server);
  // Every call's end feeds the metrics and the call log (one observer each).
  const calls = createCallMetrics({ perKeyLabels: config.metrics.perKeyLabels, currency: config.budget.currency });
  const guardrailCounts = new GuardrailMetrics();
  const watchers: CallObserver[] = [calls, guardrailCounts];
  const fallback = defaultLogOptions(process.stdout.isTTY === true);
  const log = options.log ?? { format: config.logging.format ?? fallback.format, level: config.logging.level };
  // Call lines of one event-loop turn go out in one write (line-sink.ts).
  const stdout = createLineSink((text) => process.stdout.write(text));
  if (log !== false) watchers.push(createLogger(log, stdout.write));
  const tracing = startTracing(config.tracing, reportTracingError);
  // This loop's own calls are counted apart for /metrics; the other loops' ends feed the same watchers.
  let ownCalls = 0;
  const relay = createRelay({
    snapshot,
    ledger,
    observer: observers([...watchers, { ended: () => void ownCalls++ }]),
    tracer: tracing?.tracer,
    clock: options.clock,
    random: options.random,
    slots: createCallSlots(config.server, loopCount),
  });
  const lag = watchLoopLag();
  const ownStats = (): LoopStats => ({ loop: 0, inFlight: relay.inFlight, slots: relay.slotState(), lag: lag.histogram, calls: ownCalls });
  const allLoops = () => loopTotals(ownStats(), loops?.stats() ?? []);
  // Alerts are delivered from the store's outbox, never on a call's path.
  const alerts = store && startAlertDispatcher({ store, settings: () => snapshot.current.config.alerts, onError: reportAlertError });
  // The books' invariant, checked in the background (journal.booksCheckMs; /metrics shows the last check).
  const books = store && config.journal.booksCheckMs > 0 ? watchBooks(store, config.journal.booksCheckMs, reportBooksError) : undefined;
  const journalMaxLagMs = () => snapshot.current.config.journal.maxLagMs;

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
    const built = createRelaySnapshot(effective, upstreamFetch, snapshotShared);
    catalog.reconfigure(effective.budgets, effective.budget.mode, effective.teams);
    keys.keyring.replaceConfigKeys(effective.keys);
    await store?.setAlertRules(alertRulesOf(effective));
    snapshot.current = built;
    adminTokens = adminTokensOf(effective.server);
    await loops?.reconfigure(effective);
    return { reloaded: true, needsRestart: restartNeeded(config, next) };
  };
  let reloads: Promise<unknown> = Promise.resolve();
  const loadConfig = options.loadConfig;
  const reload: Reload | undefined = loadConfig && ((actor) => {
    const run = reloads.then(async () => {
      const outcome = await reloadOnce(loadConfig);
      // Audited whether it took effect or was refused (the problems name places, never values).
      await store?.recordAudit({ actor, action: "config.reload", target: "config", before: null, after: outcome }).catch(reportJournalError);
      return outcome;
    });
    reloads = run.catch(() => undefined);
    return run;
  });

  let accepting = true;
  const clock = options.clock ?? Date.now;
  const coolingDown = () => snapshot.current.router.coolingDown(clock());
  const metrics = metricsRoute(config, {
    calls,
    ledger,
    inFlight: () => allLoops().inFlight,
    slots: () => allLoops().slots,
    loops: () => allLoops().loops,
    refresh: () => loops?.refresh() ?? Promise.resolve(),
    upstreamFetchLimit,
    adminTokens: () => adminTokens,
    budgets: () => [...snapshot.current.config.budgets, ...catalog.stored()],
    rateLimits: () => snapshot.current.rateLimiter.state(),
    rateStore: shared.limits?.stats,
    // The cache's counts of this loop and of the others (as last asked, like their other figures).
    cache: shared.cache && (() => sumCacheCounts([shared.cache!.stats, ...(loops?.stats() ?? []).flatMap((loop) => (loop.cache === undefined ? [] : [loop.cache]))])),
    traces: tracing && (() => tracing.exporter.stats()),
    targets: () => targetStatuses(snapshot.current.router.targets(), clock()),
    journalMaxLagMs,
    books: books && (() => books.last),
    guardrails: () => guardrailCounts.counts(),
  });
  const refreshBudgets = () => budgetSync?.refresh() ?? Promise.resolve();
  const surface = createAdminSurface({ config, snapshot, store, ledger, catalog, keys, reload, adminTokens: () => adminTokens, refreshBudgets, clock, metrics });
  const http = createHttpHandler({ relay, ledger, accepting: () => accepting, ...surface.onModelListener, coolingDown, journalMaxLagMs });
  const server = await runtime.serve({
    hostname: config.server.host,
    port: config.server.port,
    idleTimeoutSeconds: config.server.idleTimeoutSeconds,
    reusePort: loopCount > 1,
    fetch: http,
    onError: lastResortResponse,
  });
  /** Undoes a start that failed once the model listener was open, and rethrows. */
  const failedStart = async (error: unknown, servers: ReadonlyArray<Server | undefined>): Promise<never> => {
    lag.stop();
    books?.stop();
    budgetSync?.stop();
    keys.stop();
    await Promise.all(servers.map((opened) => opened?.stop()));
    await alerts?.stop();
    await closeLedger();
    await tracing?.exporter.shutdown();
    throw error;
  };
  const adminServer = await surface
    .listenApart(runtime, { ledger, accepting: () => accepting, coolingDown, journalMaxLagMs })
    .catch((error: unknown) => failedStart(error, [server]));
  if (loopCount > 1) {
    loops = await startEventLoops({
      runtime,
      loops: loopCount,
      port: server.port,
      config,
      serverSecret: keys.serverSecret,
      storedKeys: async () => (store ? (await store.keysChangedSince(0)).keys : []),
      storedBudgets: () => storedBudgets,
      ledger,
      rateLimits: () => snapshot.current.rateLimiter,
      observer: observers(watchers),
      cache: shared.cache?.store,
      http,
    }).catch((error: unknown) => failedStart(error, [server, adminServer]));
  }
  return {
    server,
    url: urlOf(server),
    adminUrl: adminServer && urlOf(adminServer),
    recovered,
    eventLoops: loopCount,
    upstreamFetchLimit,
    traceStats: () => tracing?.exporter.stats(),
    reload: reload ?? (() => Promise.resolve({ reloaded: false, problems: ["this relay was not started from a config file (--config); there is nothing to reload"] })),
    async shutdown() {
      // While in-flight calls drain, the listeners stay open: new calls get 503 shutting_down
      // (with retry-after) in their route's envelope and /readyz 503, so clients and load
      // balancers move on instead of meeting refused connections; /healthz stays 200.
      accepting = false;
      budgetSync?.stop();
      books?.stop();
      const graceMs = snapshot.current.config.server.shutdownGraceMs;
      const deadline = performance.now() + graceMs;
      // Every loop stops taking calls at once; each settles its calls with this loop's ledger before it reports drained.
      await Promise.all([relay.drained(graceMs), loops?.drain(graceMs)]);
      lag.stop();
      keys.stop();
      await alerts?.stop();
      await closeLedger();
      await shared.close();
      await tracing?.exporter.shutdown();
      // A call has ended once its upstream has; its last bytes may still be on their way to the
      // client. The server's graceful stop waits for them (bounded by what is left of the grace period),
      // so the process does not exit under a response it is still writing.
      const stopped = Promise.all([server.stop(), adminServer?.stop()]);
      let timer: ReturnType<typeof setTimeout> | undefined;
      await Promise.race([stopped, new Promise<void>((resolve) => (timer = setTimeout(resolve, Math.max(0, deadline - performance.now()))))]);
      clearTimeout(timer);
      loops?.terminate();
      stdout.flush();
    },
  };
}

function urlOf(server: Server): string {
  const host = server.hostname.includes(":") ? `[${server.hostname}]` : server.hostname;
  return `http://${host}:${server.port}`;
}
