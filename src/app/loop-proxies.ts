import type { Admission } from "../budgets/budget-charge.ts";
import type { CacheStore } from "../cache/cache-store.ts";
import type { Ledger, LedgerStats } from "../journal/ledger.ts";
import { UNLIMITED, type RateLimiter } from "../limits/rate-limiter.ts";
import type { CallObserver } from "../observe/call-observer.ts";
import { StoreUnavailableError } from "../shared/relay-error.ts";
import type { LoopPeer } from "./loop-peer.ts";
import type { WorkerNote, WorkerRequest } from "./loop-messages.ts";

/** The worker loop's end of the channel to the owner loop. */
export type OwnerPeer = LoopPeer<WorkerRequest, WorkerNote>;

const NO_STATS: LedgerStats = { admissionWriteSeconds: null, admissionGroupSizes: null, backlog: 0, applyLagMs: 0, failing: false, quarantined: new Map(), unsettled: 0 };

/**
 * A worker loop's ledger: the owner loop's, reached by messages. An admission is the owner's
 * (one journal, one budget book: concurrent calls of every loop meet the same ceiling); a
 * completion or refusal goes over one-way, in order, so it is the owner's before the worker
 * reports itself drained.
 */
export function ownerLedger(owner: OwnerPeer): Ledger {
  return {
    admit: (start, charges, cheaper) =>
      (owner.request({ t: "admit", start, charges, cheaper }) as Promise<Admission>).catch((error: unknown) => {
        // Fail closed: an admission the owner could not answer is a refusal, never a call sent unrecorded.
        throw error instanceof StoreUnavailableError ? error : new StoreUnavailableError();
      }),
    complete: (id, completion, charges, cost) => owner.note({ t: "complete", id, completion, charges, cost }),
    refuse: (refusal) => owner.note({ t: "refuse", refusal }),
    flush: () => owner.request({ t: "flush" }).then(() => undefined),
    ready: () => owner.request({ t: "ready" }).then((ready) => ready === true, () => false),
    close: () => owner.request({ t: "flush" }).then(() => undefined),
    // The owner's /metrics and /readyz show the store; a worker hands those requests to it.
    stats: () => NO_STATS,
    budgetUsage: () => Promise.resolve([]),
  };
}

/** The ticket of a call no limit applies to. */

/**
 * A worker loop's rate limits: the owner loop's buckets, one round trip per call when the config
 * has a limit at all (none: no message). The ticket's end and cancel go over one-way.
 */
export function ownerRateLimiter(owner: OwnerPeer, limited: boolean): RateLimiter {
  if (!limited) return { admit: () => UNLIMITED, state: () => [] };
  return {
    state: () => [],
    admit: async (call) => {
      const { ticket, headers } = (await owner.request({ t: "rate", call })) as { ticket: number; headers: Readonly<Record<string, string>> };
      if (ticket === 0) return { headers, end() {}, cancel() {} };
      return {
        headers,
        end: (usage, billed) => owner.note({ t: "rate-end", ticket, usage, billed }),
        cancel: () => owner.note({ t: "rate-cancel", ticket }),
      };
    },
  };
}

/**
 * A worker loop's call observer: every call's end goes to the owner's metrics and call log
 * (one page, one log), without the request body the journal may keep. `calls` counts this loop's.
 */
export function ownerObserver(owner: OwnerPeer): CallObserver & { readonly calls: number } {
  let calls = 0;
  return {
    get calls() {
      return calls;
    },
    ended(start, end, reserved) {
      calls++;
      owner.note({ t: "ended", start: start.requestBody === null ? start : { ...start, requestBody: null }, end, reserved });
    },
  };
}

/**
 * A worker loop's response cache store: the owner loop's (one SQLite file or one Redis
 * connection for every loop), reached by messages; the bytes are copied across.
 */
export function ownerCacheStore(owner: OwnerPeer): CacheStore {
  return {
    get: (key) => owner.request({ t: "cache-get", key }) as Promise<Uint8Array | null>,
    put: (key, value, ttlMs) => owner.request({ t: "cache-put", key, value, ttlMs }).then(() => undefined),
    close: async () => {},
  };
}
