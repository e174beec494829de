import type { BudgetCharge } from "../budgets/budget-charge.ts";
import type { StoredBudget } from "../budgets/budget-definition.ts";
import type { StoredExtras } from "../budgets/budget-catalog.ts";
import type { AdmitAlternative } from "../journal/journal-store.ts";
import type { CacheCounts } from "../cache/response-cache.ts";
import type { Config } from "../config/config-schema.ts";
import type { StoredKey } from "../keys/key-store.ts";
import type { RateCall } from "../limits/rate-limiter.ts";
import type { SlotState } from "../relay/call-slots.ts";
import type { Histogram } from "../shared/histogram.ts";
import type { JournalCompletion, JournalRefusal, JournalStart } from "../shared/journal-records.ts";
import type { Usage } from "../shared/usage.ts";

/**
 * The messages between the owner loop (the main thread: journal, budgets, rate limits, the
 * store, admin routes, metrics) and a worker loop (its own listener on the same port, relaying
 * the calls its connections bring).
 */

/** A request a worker loop hands to the owner whole (admin, metrics, dashboard, readiness). */
export interface HandedRequest {
  readonly method: string;
  readonly url: string;
  readonly headers: ReadonlyArray<readonly [string, string]>;
  readonly body: Uint8Array | null;
  readonly remoteAddress: string;
}

/** The owner's answer to a {@link HandedRequest}. */
export interface HandedResponse {
  readonly status: number;
  readonly headers: ReadonlyArray<readonly [string, string]>;
  readonly body: ArrayBuffer;
}

/** Worker → owner, answered. */
export type WorkerRequest =
  | { readonly t: "admit"; readonly start: JournalStart; readonly charges: readonly BudgetCharge[]; readonly cheaper?: AdmitAlternative }
  /** Answered with the ticket number (0: no limit applies) and the response headers, or the 429. */
  | { readonly t: "rate"; readonly call: RateCall }
  | { readonly t: "flush" }
  | { readonly t: "ready" }
  | { readonly t: "http"; readonly request: HandedRequest }
  /** The response cache's store is the owner's: answered with the bytes or null. */
  | { readonly t: "cache-get"; readonly key: string }
  /** Answered once stored (or rejected: the worker counts the error). */
  | { readonly t: "cache-put"; readonly key: string; readonly value: Uint8Array; readonly ttlMs: number };

/** Worker → owner, one-way. */
export type WorkerNote =
  | { readonly t: "complete"; readonly id: string; readonly completion: JournalCompletion; readonly charges: readonly BudgetCharge[]; readonly cost: number }
  | { readonly t: "refuse"; readonly refusal: JournalRefusal }
  | { readonly t: "ended"; readonly start: JournalStart; readonly end: JournalCompletion; readonly reserved: number | undefined }
  | { readonly t: "rate-end"; readonly ticket: number; readonly usage: Usage | null; readonly billed: boolean }
  | { readonly t: "rate-cancel"; readonly ticket: number };

/** What a worker loop starts from. */
export interface LoopStart {
  readonly loop: number;
  readonly loops: number;
  readonly port: number;
  readonly config: Config;
  /** The server secret stored keys are hashed under (undefined without a store). */
  readonly serverSecret: string | undefined;
  readonly storedKeys: readonly StoredKey[];
  readonly storedBudgets: StoredBudgets;
}

/** The stored budgets as last read, with the overrides and teams read beside them. */
export interface StoredBudgets {
  readonly budgets: readonly StoredBudget[];
  readonly extras: StoredExtras | undefined;
}

/** Owner → worker, answered. */
export type OwnerRequest =
  | { readonly t: "start"; readonly start: LoopStart }
  /** A reload: the worker swaps in a snapshot of this config. */
  | { readonly t: "config"; readonly config: Config }
  | { readonly t: "stats" }
  /** Stop taking calls, let those in flight end (within graceMs), stop the listener. */
  | { readonly t: "drain"; readonly graceMs: number };

/** Owner → worker, one-way. */
export type OwnerNote =
  | { readonly t: "keys"; readonly keys: readonly StoredKey[] }
  | { readonly t: "budgets"; readonly stored: StoredBudgets };

/** A loop's figures for /metrics. */
export interface LoopStats {
  readonly loop: number;
  readonly inFlight: number;
  readonly slots: SlotState;
  readonly lag: Histogram;
  /** Model calls this loop has served (ended: settled or refused). */
  readonly calls: number;
  /** What the response cache did for this loop's calls (absent: no cache). */
  readonly cache?: CacheCounts;
}

/** The messages of a call's path (and their answers): JSON values only, so they cross as JSON (loop-peer.ts). */
const PLAIN: ReadonlySet<string> = new Set(["admit", "rate", "flush", "ready", "complete", "refuse", "ended", "rate-end", "rate-cancel"]);

/** Whether a message between the loops (and its answer) holds JSON values only. */
export function plainMessage(message: unknown): boolean {
  return PLAIN.has((message as { readonly t: string }).t);
}
