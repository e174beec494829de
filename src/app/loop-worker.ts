import process from "node:process";
import { createBudgetCatalog } from "../budgets/budget-catalog.ts";
import { CacheStats } from "../cache/response-cache.ts";
import type { Config } from "../config/config-schema.ts";
import { errorResponse, wireOf } from "../http/error-envelope.ts";
import { createHttpHandler, lastResortResponse } from "../http/app.ts";
import { requestIdFor } from "../http/request-id.ts";
import { targetOf } from "../http/request-target.ts";
import { keySecretOf } from "../keys/key-secret.ts";
import { createKeyring } from "../keys/keyring.ts";
import { createLedgerOff } from "../journal/ledger-off.ts";
import { watchLoopLag } from "../observe/loop-lag.ts";
import { startTracing } from "../observe/tracing.ts";
import { createCallSlots } from "../relay/call-slots.ts";
import { readBody } from "../relay/read-body.ts";
import { createRelay } from "../relay/relay.ts";
import { createRelaySnapshot, type RelaySnapshot, type SnapshotCell } from "../relay/relay-snapshot.ts";
import { createTargetHealthBook } from "../routing/target-health.ts";
import type { ConnectionInfo, FetchHandler, Runtime } from "../runtime/runtime.ts";
import { newEntryId } from "../shared/entry-id.ts";
import { RelayError } from "../shared/relay-error.ts";
import { ROUTES } from "../shared/route-spec.ts";
import { plainMessage, type HandedResponse, type LoopStart, type LoopStats, type OwnerNote, type OwnerRequest, type WorkerNote, type WorkerRequest } from "./loop-messages.ts";
import { createLoopPeer, type LoopPort } from "./loop-peer.ts";
import { ownerCacheStore, ownerLedger, ownerObserver, ownerRateLimiter, type OwnerPeer } from "./loop-proxies.ts";
import { upstreamFetchOf } from "./upstream-client.ts";

/** A started worker loop, as its messages reach it. */
interface WorkerLoop {
  reconfigure(config: Config): void;
  note(message: OwnerNote): void;
  stats(): LoopStats;
  drain(graceMs: number): Promise<void>;
}

/**
 * One more event loop serving HTTP, in a worker thread: its own listener on the relay's port
 * (the kernel spreads connections over the loops), its own relay for the model calls those
 * connections bring (reading, forwarding, the usage scan, writing to the client), and the
 * owner loop's journal, budgets, rate limits and response cache store, reached by messages.
 * Every other route (admin, metrics, dashboard, readiness) is handed to the owner whole.
 */
export function serveLoop(port: LoopPort, runtime: Runtime): void {
  let running: WorkerLoop | undefined;
  // Keys and budgets changed while the loop starts are applied once it has (applying one twice changes nothing).
  const early: OwnerNote[] = [];
  const owner: OwnerPeer = createLoopPeer<WorkerRequest, WorkerNote, OwnerRequest, OwnerNote>(port, {
    request(message) {
      if (message.t === "start") {
        return startLoop(message.start, owner, runtime).then((loop) => {
          running = loop;
          for (const note of early.splice(0)) loop.note(note);
        });
      }
      if (running === undefined) throw new RelayError(503, "internal_error", "this event loop has not started");
      if (message.t === "config") return running.reconfigure(message.config);
      if (message.t === "stats") return running.stats();
      return running.drain(message.graceMs);
    },
    note: (message) => (running === undefined ? early.push(message) : running.note(message)),
    plain: plainMessage,
  });
}

async function startLoop(start: LoopStart, owner: OwnerPeer, runtime: Runtime): Promise<WorkerLoop> {
  const { config } = start;
  const catalog = createBudgetCatalog(config.budgets, config.budget.mode, config.teams);
  catalog.replace(start.storedBudgets.budgets, start.storedBudgets.extras);
  const keyring = createKeyring(config.keys, { keySecret: start.serverSecret === undefined ? undefined : keySecretOf(start.serverSecret) });
  keyring.applyStoredKeys(start.storedKeys);
  // Cooldowns are this loop's own: each loop learns of a failing target from its own calls.
  const health = createTargetHealthBook();
  const upstreamFetch = upstreamFetchOf(runtime, config.server.upstreamClient, () => relay.inFlight);
  // The response cache: the owner's store, this loop's counts (summed on the owner's /metrics).
  const cache = config.cache && { store: ownerCacheStore(owner), stats: new CacheStats() };
  const snapshotOf = (next: Config): RelaySnapshot => ({
    ...createRelaySnapshot(next, upstreamFetch, { budgets: catalog, keyring, health, cache }),
    rateLimiter: ownerRateLimiter(owner, next.rateLimits.limits.length > 0),
  });
  const snapshot: SnapshotCell = { current: snapshotOf(config) };
  // Without a journal there is nothing to record and no budget (the config forbids them): no message per call.
  const ledger = config.journal.enabled ? ownerLedger(owner) : createLedgerOff();
  const observer = ownerObserver(owner);
  const tracing = startTracing(config.tracing, (message) => process.stderr.write(`renio: tracing: ${message}\n`));
  const relay = createRelay({ snapshot, ledger, observer, tracer: tracing?.tracer, slots: createCallSlots(config.server, start.loops) });
  let accepting = true;
  const local = createHttpHandler({
    relay,
    ledger,
    accepting: () => accepting,
    coolingDown: () => snapshot.current.router.coolingDown(Date.now()),
    journalMaxLagMs: () => snapshot.current.config.journal.maxLagMs,
  });
  const fetch: FetchHandler = (request, info) => (servedHere(request.url) ? local(request, info) : handOver(owner, request, info, snapshot.current.config));
  const server = await runtime.serve({
    hostname: config.server.host,
    port: start.port,
    idleTimeoutSeconds: config.server.idleTimeoutSeconds,
    reusePort: true,
    fetch,
    onError: lastResortResponse,
  });
  const lag = watchLoopLag();
  return {
    reconfigure(next) {
      snapshot.current = snapshotOf(next);
      catalog.reconfigure(next.budgets, next.budget.mode, next.teams);
      keyring.replaceConfigKeys(next.keys);
    },
    note(message) {
      if (message.t === "keys") keyring.applyStoredKeys(message.keys);
      else catalog.replace(message.stored.budgets, message.stored.extras);
    },
    stats: () => ({ loop: start.loop, inFlight: relay.inFlight, slots: relay.slotState(), lag: lag.histogram, calls: observer.calls, ...(cache === undefined ? {} : { cache: { ...cache.stats } }) }),
    async drain(graceMs) {
      accepting = false;
      const deadline = performance.now() + graceMs;
      await relay.drained(graceMs);
      await tracing?.exporter.shutdown();
      lag.stop();
      // The last bytes of ended calls may still be on their way to clients (bounded by the grace period).
      let timer: ReturnType<typeof setTimeout> | undefined;
      await Promise.race([server.stop(), new Promise<void>((resolve) => (timer = setTimeout(resolve, Math.max(0, deadline - performance.now()))))]);
      clearTimeout(timer);
    },
  };
}

/** Model calls, the model list and liveness are served on every loop; the rest by the owner. */
function servedHere(url: string): boolean {
  const target = targetOf(url);
  const query = target.indexOf("?");
  const path = query === -1 ? target : target.slice(0, query);
  return ROUTES.has(path) || path === "/v1/models" || path === "/healthz";
}

/** Hands a request to the owner loop and answers with its response (admin and metrics answers are small; never streamed). */
async function handOver(owner: OwnerPeer, request: Request, info: ConnectionInfo, config: Config): Promise<Response> {
  let body: Uint8Array | null = null;
  try {
    if (request.method !== "GET" && request.method !== "HEAD") body = await readBody(request, { maxBytes: config.server.maxBodyBytes, timeoutMs: config.server.bodyReadTimeoutMs });
  } catch (error) {
    const path = targetOf(request.url).split("?")[0] ?? "/";
    if (error instanceof RelayError) return errorResponse(error, wireOf(path, request.headers), requestIdFor(request.headers, newEntryId()));
    throw error;
  }
  const answer = (await owner.request({ t: "http", request: { method: request.method, url: request.url, headers: [...request.headers], body, remoteAddress: info.remoteAddress } })) as HandedResponse;
  const empty = request.method === "HEAD" || answer.status === 204 || answer.status === 304;
  return new Response(empty ? null : answer.body, { status: answer.status, headers: answer.headers as Array<[string, string]> });
}
