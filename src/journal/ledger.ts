import type { Usage } from "../shared/usage.ts";

/**
 * The relay's view of storage: the write-ahead journal and the budget ledger.
 * Implemented over the Store with group commit (see sql-ledger).
 */

/** How a call ended. */
export type Outcome =
  | "ok"
  | "upstream_error"
  | "client_aborted"
  | "timeout"
  | "relay_error"
  | "refused"
  | "interrupted";

/** Written (and durably committed) before the provider call. */
export interface JournalStart {
  /** Unique id (the request id). */
  id: string;
  /** Epoch ms the request arrived. */
  receivedAt: number;
  /** The caller's x-request-id when it sent a usable one, else null. */
  requestId: string | null;
  keyId: string | null;
  project: string | null;
  /** e.g. "/v1/chat/completions" */
  route: string;
  /** Public model name requested. */
  model: string | null;
  provider: string | null;
  upstreamModel: string | null;
  stream: boolean;
  requestBytes: number;
  clientAddress: string;
  /** Request body as stored under `journal.bodies` (already capped), or null. */
  requestBody: string | null;
}

/** One amount held against one budget for one period. */
export interface BudgetCharge {
  budgetId: string;
  /** Period the charge falls in: "total", "2026-12" or "2026-12-02". */
  period: string;
  /** Limit of that budget (same currency as all amounts). */
  limit: number;
  /** strict refuses when the amount does not fit; observe only records. */
  mode: "strict" | "observe";
  /** Amount to reserve (the cost's upper bound). */
  amount: number;
}

/** Result of admitting a call. */
export type Admission =
  | { admitted: true; /** Remaining amount of the tightest budget after the reservation, if any budget applies. */ remaining?: { budgetId: string; amount: number } }
  | { admitted: false; /** The budget that could not cover the charge. */ budgetId: string; limit: number; remaining: number };

/** Written after the call (may be batched). */
export interface JournalCompletion {
  outcome: Outcome;
  status: number;
  /** ms from arrival to the first response byte sent to the client. */
  ttfbMs: number | null;
  totalMs: number;
  /** ms spent waiting on the upstream (request sent → response ended). */
  upstreamMs: number | null;
  usage: Usage | null;
  /** Settled cost (null when no budget/price applies). */
  cost: number | null;
  errorCode: string | null;
  responseBody: string | null;
}

/** A refused call: recorded, never forwarded. */
export interface JournalRefusal {
  start: JournalStart;
  status: number;
  errorCode: string;
}

/** The journal and budget ledger as the relay uses it (see sql-ledger.ts for the implementation). */
export interface Ledger {
  /**
   * Durably records `start` and atomically reserves every charge, in one commit shared with
   * concurrent calls. If any strict charge does not fit, nothing is reserved and the entry is
   * recorded as refused. Rejects with StoreUnavailableError when the commit fails.
   */
  admit(start: JournalStart, charges: readonly BudgetCharge[]): Promise<Admission>;
  /** Completes an admitted entry and settles its charges to `actualCost` (batched; never throws). */
  complete(id: string, completion: JournalCompletion, charges: readonly BudgetCharge[], actualCost: number): void;
  /** Records a call refused before admission (bad key, bad input). Batched; never throws. */
  refuse(refusal: JournalRefusal): void;
  /** Writes every batched completion now. */
  flush(): Promise<void>;
  /** Whether the store answers. */
  ready(): Promise<boolean>;
  /** Flushes and closes. */
  close(): Promise<void>;
}
