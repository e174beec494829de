import type { Usage } from "./usage.ts";

/**
 * The journal's entry records: what is written before a call (JournalStart), after it
 * (JournalCompletion), for a call refused before admission (JournalRefusal), and an entry as
 * read back (JournalEntry). Shared by relay, journal, storage and the CLI.
 */

/** Every way a call can end, as journaled. */
export const OUTCOMES = ["ok", "upstream_error", "client_aborted", "timeout", "relay_error", "refused", "interrupted", "cache_hit"] as const;

/** How a call ended. */
export type Outcome = (typeof OUTCOMES)[number];

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
  /** The region of the provider the call was routed to (null or absent when it was not routed; absent in older records). */
  region?: string | null;
  stream: boolean;
  requestBytes: number;
  clientAddress: string;
  /** Request body as stored under `journal.bodies` (already capped; guardrail matches masked), or null. */
  requestBody: string | null;
  /** What guardrail policies found in the request (absent or null when none fired; absent in older records). */
  guardrails?: JournalGuardrail[] | null;
  /** Who the call is for, within its key's project (absent: none, or an older record). */
  endUser?: string | null;
  /** The team of the key's project (absent: none). */
  team?: string | null;
  /** The call's allowed tags, [name, value] pairs (absent: none). */
  tags?: Array<[string, string]> | null;
  /** The model asked for, when a budget served the call with a cheaper one (`model`). */
  downgradedFrom?: string | null;
}

/** Where a guardrail match was: the part of the request or answer, and the match's character offset and length in it. */
export interface GuardrailPosition {
  /** e.g. `messages[2].content`, `choices[0].delta.content` (for a stream: the text of that choice). */
  part: string;
  start: number;
  length: number;
}

/**
 * One detector of one policy that fired on a call: how many matches, where (the first few),
 * and what was done. Never the matched text.
 */
export interface JournalGuardrail {
  policy: string;
  /** What was scanned. */
  on: "request" | "answer";
  /** A built-in or custom detector id, or `webhook` (the policy's external check). */
  detector: string;
  /** What the policy does on a match. */
  action: "block" | "redact" | "pseudonymise" | "log";
  count: number;
  /** The first matches' positions (at most 16). */
  at: GuardrailPosition[];
  /** The external check failed (`timeout`, `unavailable`, `invalid_verdict`); the call went on only when the policy fails open. */
  error?: string;
}

/** One upstream attempt of a call (docs/routing.md: attempt records). */
export interface JournalAttempt {
  provider: string;
  upstreamModel: string;
  /** The public model whose target it was (a fallback's name when the call fell back). */
  model: string;
  /** The provider's status; null when no answer came (connection refused or reset, timeout, client gone). */
  status: number | null;
  /** Why it did not serve the call (`upstream_503`, `upstream_reset`, …); null for an attempt that served it. */
  errorCode: string | null;
  /** ms from sending it to its end. */
  ms: number;
  /** What it was charged: from the provider's usage, its reservation when it may have been billed without usage, else 0; null without a price. */
  cost: number | null;
}

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
  /**
   * True when `cost` is the reservation, charged because the provider may have billed the call
   * but reported no final usage (an estimate); false when it comes from the provider's usage
   * (or is zero because the provider cannot have billed it). Absent in records of older versions.
   */
  costEstimated?: boolean;
  /** A `cache_hit`'s saving: what the answer cost when it was first paid for (null without a price; absent for other calls). */
  savedCost?: number | null;
  errorCode: string | null;
  responseBody: string | null;
  /** Every upstream attempt, in order (absent in records of older versions). */
  attempts?: JournalAttempt[];
  /** Where the call was served (or last tried), when that is not the start's target (a retry or fallback moved it). */
  provider?: string;
  upstreamModel?: string;
  region?: string;
  /** What guardrail policies found in the request and the answer (absent when none fired). */
  guardrails?: JournalGuardrail[];
}

/** A refused call: recorded, never forwarded. */
export interface JournalRefusal {
  start: JournalStart;
  status: number;
  errorCode: string;
  /** Recorded outcome (default "refused"): "client_aborted" for a client gone before its body arrived. */
  outcome?: "refused" | "client_aborted";
}

/** A journal entry as read back. Times are epoch ms. */
export interface JournalEntry extends JournalStart {
  region: string | null;
  finishedAt: number | null;
  /** "started" while in flight. */
  outcome: Outcome | "started";
  status: number | null;
  ttfbMs: number | null;
  totalMs: number | null;
  upstreamMs: number | null;
  inputTokens: number | null;
  cachedInputTokens: number | null;
  outputTokens: number | null;
  reservedCost: number | null;
  cost: number | null;
  /** See {@link JournalCompletion.costEstimated}; null while unfinished, for interrupted entries and for older entries. */
  costEstimated: boolean | null;
  /** See {@link JournalCompletion.savedCost}; null for calls not served from the cache. */
  savedCost: number | null;
  errorCode: string | null;
  responseBody: string | null;
  reconcile: "pending" | "settled" | null;
  /** The call's upstream attempts, in order; null for calls never sent and entries from before schema 6. */
  attempts: JournalAttempt[] | null;
  /** What guardrail policies found (request, and the answer once finished); null when none fired. */
  guardrails: JournalGuardrail[] | null;
  /** Who the call was for: end user (within its project), team, tags; null when none. */
  endUser: string | null;
  team: string | null;
  tags: Array<[string, string]> | null;
  /** The model asked for, when a budget served the call with the cheaper `model`. */
  downgradedFrom: string | null;
}
