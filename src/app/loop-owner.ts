import os from "node:os";
import process from "node:process";
import type { CacheStore } from "../cache/cache-store.ts";
import type { Config } from "../config/config-schema.ts";
import type { LoopFigures } from "../http/loop-metrics.ts";
import type { Ledger } from "../journal/ledger.ts";
import type { StoredKey } from "../keys/key-store.ts";
import type { RateLimiter, RateTicket } from "../limits/rate-limiter.ts";
import type { CallObserver } from "../observe/call-observer.ts";
import type { SlotState } from "../relay/call-slots.ts";
import type { FetchHandler, Runtime } from "../runtime/runtime.ts";
import { plainMessage, type HandedRequest, type HandedResponse, type LoopStats, type OwnerNote, type StoredBudgets, type OwnerRequest, type WorkerNote, type WorkerRequest } from "./loop-messages.ts";
import { createLoopPeer, type LoopPeer } from "./loop-peer.ts";

/** How long a scrape waits for a worker loop's figures before showing the last ones it gave (ms). */
const STATS_WAIT_MS = 1000;

/**
 * The event loops `server.eventLoops` asks for on this runtime: one where the server cannot share
 * its port (Deno), or where the kernel would not spread connections over listeners that do (only
 * Linux balances SO_REUSEPORT listeners).
 */
export function eventLoopCount(setting: Config["server"]["eventLoops"], runtime: Pick<Runtime, "loopWorker">, platform: string = process.platform): number {
  if (runtime.loopWorker === undefined || platform !== "linux") return 1;
  if (setting !== "auto") return setting;
  return Math.max(1, Math.min(64, typeof os.availableParallelism === "function" ? os.availableParallelism() : os.cpus().length));
}

/** What the worker loops need from the owner loop. */
export interface LoopOwnerDeps {
  readonly runtime: Runtime;
  /** Every loop, the owner's included (so workers = loops - 1). */
  readonly loops: number;
  /** The port the owner's listener took (workers listen on it too). */
  readonly port: number;
  readonly config: Config;
  readonly serverSecret: string | undefined;
  /** Every stored key, read now (a worker starts with them; later changes come by {@link EventLoops.storedKeys}). */
  readonly storedKeys: () => Promise<readonly StoredKey[]>;
  /** The stored budgets as last read. */
  readonly storedBudgets: () => StoredBudgets;
  readonly ledger: Ledger;
  /** The rate limits in force (the owner's snapshot's). */
  readonly rateLimits: () => RateLimiter;
  /** Metrics and the call log. */
  readonly observer: CallObserver | undefined;
  /** The response cache's store, which every loop's calls use (absent: no cache). */
  readonly cache: CacheStore | undefined;
  /** The owner's handler of every route, for requests a worker hands over. */
  readonly http: FetchHandler;
}

/** The worker loops, seen from the owner loop. */
export interface EventLoops {
  /** Stored keys the owner's keyring just took in. */
  storedKeys(keys: readonly StoredKey[]): void;
  /** The stored budgets, just read. */
  storedBudgets(stored: StoredBudgets): void;
  /** A reload: resolves once every worker loop serves with the new config. */
  reconfigure(config: Config): Promise<void>;
  /** Asks every worker loop for its figures (for a scrape). */
  refresh(): Promise<void>;
  /** The worker loops' figures as last asked. */
  stats(): readonly LoopStats[];
  /** Stops new calls on every worker loop and waits for theirs to end and settle (at most graceMs). */
  drain(graceMs: number): Promise<void>;
  /** Ends the worker threads (after the drain). */
  terminate(): void;
}

/**
 * Starts `loops - 1` worker loops, each with its own listener on the owner's port, and answers
 * their messages: admissions (the one journal and budget book), rate-limit tickets, settlements,
 * call ends (metrics, the call log), the response cache's reads and writes and the requests they
 * hand over.
 */
export async function startEventLoops(deps: LoopOwnerDeps): Promise<EventLoops> {
  const workers: Array<{ readonly thread: Worker; readonly peer: LoopPeer<OwnerRequest, OwnerNote>; last: LoopStats | undefined }> = [];
  let tickets = 0;
  try {
    for (let loop = 1; loop < deps.loops; loop++) {
      const thread = deps.runtime.loopWorker!();
      // A worker's rate-limit tickets, given back if the worker dies with them.
      const held = new Map<number, RateTicket>();
      thread.addEventListener("error", (event) => {
        process.stderr.write(`renio: event loop ${loop}: ${(event as ErrorEvent).message ?? "stopped"}\n`);
        for (const ticket of held.values()) ticket.cancel();
        held.clear();
      });
      const peer = createLoopPeer<OwnerRequest, OwnerNote, WorkerRequest, WorkerNote>(thread, {
        request(message) {
          switch (message.t) {
            case "admit":
              return deps.ledger.admit(message.start, message.charges, message.cheaper);
            case "rate": {
              const ticket = deps.rateLimits().admit(message.call);
              return ticket instanceof Promise ? ticket.then((t) => hold(held, ++tickets, t)) : hold(held, ++tickets, ticket);
            }
            case "flush":
              return deps.ledger.flush();
            case "ready":
              return deps.ledger.ready();
            case "http":
              return answer(deps.http, message.request);
            case "cache-get":
              return deps.cache === undefined ? null : deps.cache.get(message.key);
            case "cache-put":
              return deps.cache?.put(message.key, message.value, message.ttlMs);
          }
        },
        note(message) {
          switch (message.t) {
            case "complete":
              return deps.ledger.complete(message.id, message.completion, message.charges, message.cost);
            case "refuse":
              return deps.ledger.refuse(message.refusal);
            case "ended":
              return deps.observer?.ended(message.start, message.end, message.reserved);
            case "rate-end":
              held.get(message.ticket)?.end(message.usage, message.billed);
              return void held.delete(message.ticket);
            case "rate-cancel":
              held.get(message.ticket)?.cancel();
              return void held.delete(message.ticket);
          }
        },
        plain: plainMessage,
      });
      workers.push({ thread, peer, last: undefined });
      // Registered before the keys are read: a change from here on reaches the worker as a note.
      const storedKeys = await deps.storedKeys();
      await peer.request({
        t: "start",
        start: { loop, loops: deps.loops, port: deps.port, config: deps.config, serverSecret: deps.serverSecret, storedKeys, storedBudgets: deps.storedBudgets() },
      });
    }
  } catch (error) {
    for (const worker of workers) worker.thread.terminate();
    throw error;
  }
  const all = <T>(ask: (peer: LoopPeer<OwnerRequest, OwnerNote>) => Promise<T>) => Promise.all(workers.map((worker) => ask(worker.peer)));
  return {
    storedKeys: (keys) => workers.forEach((worker) => worker.peer.note({ t: "keys", keys })),
    storedBudgets: (stored) => workers.forEach((worker) => worker.peer.note({ t: "budgets", stored })),
    // Bounded: a loop that does not answer (it died, and took its listener with it) never holds up a reload.
    reconfigure: (config) => within(all((peer) => peer.request({ t: "config", config })), STATS_WAIT_MS * 5).then(() => undefined),
    async refresh() {
      await Promise.all(
        workers.map(async (worker) => {
          const stats = await within(worker.peer.request({ t: "stats" }) as Promise<LoopStats>, STATS_WAIT_MS);
          if (stats !== undefined) worker.last = stats;
        }),
      );
    },
    stats: () => workers.flatMap((worker) => (worker.last === undefined ? [] : [worker.last])),
    drain: (graceMs) => within(all((peer) => peer.request({ t: "drain", graceMs })), graceMs + STATS_WAIT_MS).then(() => undefined),
    terminate: () => workers.forEach((worker) => worker.thread.terminate()),
  };
}

/** The figures of every loop as /metrics shows them: calls in flight and slots summed, lag and calls per loop. */
export function loopTotals(own: LoopStats, others: readonly LoopStats[]): { readonly inFlight: number; readonly slots: SlotState; readonly loops: readonly LoopFigures[] } {
  let inFlight = own.inFlight;
  let { active, queued } = own.slots;
  let { maxConcurrentCalls, maxQueuedCalls } = own.slots.limits;
  for (const other of others) {
    inFlight += other.inFlight;
    active += other.slots.active;
    queued += other.slots.queued;
    maxConcurrentCalls += other.slots.limits.maxConcurrentCalls;
    maxQueuedCalls += other.slots.limits.maxQueuedCalls;
  }
  return { inFlight, slots: { active, queued, limits: { maxConcurrentCalls, maxQueuedCalls, queueTimeoutMs: own.slots.limits.queueTimeoutMs } }, loops: [own, ...others] };
}

/** Keeps a worker's ticket until its call ends; the worker gets its number and headers. */
function hold(held: Map<number, RateTicket>, id: number, ticket: RateTicket): { ticket: number; headers: Readonly<Record<string, string>> } {
  held.set(id, ticket);
  return { ticket: id, headers: ticket.headers };
}

/** Serves a request a worker handed over with the owner's handler. */
async function answer(http: FetchHandler, handed: HandedRequest): Promise<HandedResponse> {
  const request = new Request(handed.url, { method: handed.method, headers: handed.headers as Array<[string, string]>, body: handed.body as Uint8Array<ArrayBuffer> | null });
  const response = await http(request, { remoteAddress: handed.remoteAddress });
  return { status: response.status, headers: [...response.headers], body: await response.arrayBuffer() };
}

/** `promise`'s value, or undefined once `ms` have passed. */
function within<T>(promise: Promise<T>, ms: number): Promise<T | undefined> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  return Promise.race([promise, new Promise<undefined>((resolve) => (timer = setTimeout(() => resolve(undefined), ms)))]).finally(() => clearTimeout(timer));
}
