import type { CacheEntry } from "../cache/cache-entry.ts";
import { replayResponse } from "../cache/cache-entry.ts";
import type { CacheCaller } from "../cache/cache-policy.ts";
import type { CacheCall, ResponseCache } from "../cache/response-cache.ts";
import type { Target } from "../routing/route-plan.ts";
import type { Ledger } from "../journal/ledger.ts";
import type { CallObserver } from "../observe/call-observer.ts";
import type { CallTrace } from "../observe/call-trace.ts";
import type { CallInput } from "../shared/call-context.ts";
import type { JournalCompletion, JournalStart } from "../shared/journal-records.ts";

/** What serving a hit needs from the spine. */
export interface CacheHitDeps {
  readonly ledger: Ledger;
  readonly observer: CallObserver | undefined;
  readonly trace: CallTrace;
  readonly currency: string;
}

/**
 * Serves a stored answer: journaled (durably, before the answer, like any call) with outcome
 * `cache_hit`, cost 0 and no charge, so it needs no reservation and is served under a budget
 * with nothing left; the provider is never called.
 */
async function serveCacheHit({ ledger, observer, trace, currency }: CacheHitDeps, start: JournalStart, input: CallInput, entry: CacheEntry, ids: Record<string, string>): Promise<Response> {
  const admission = await ledger.admit(start, []);
  if (!admission.admitted) throw new Error("an admission without charges was refused");
  const totalMs = performance.now() - input.startedAt;
  const completion: JournalCompletion = { outcome: "cache_hit", status: 200, ttfbMs: totalMs, totalMs, upstreamMs: null, usage: entry.usage, cost: 0, costEstimated: false, savedCost: entry.cost, errorCode: null, responseBody: null };
  ledger.complete(start.id, completion, [], 0);
  observer?.ended(start, completion, 0);
  trace.end({ start, ...completion, currency });
  return replayResponse(entry, { ...ids, "x-renio-cache": "hit" });
}

/** What the cache step decided: a hit's answer, or the call's use of the cache and its `x-renio-cache` header. */
export interface CacheStep {
  readonly hit?: Response;
  readonly call?: CacheCall;
  readonly header: Readonly<Record<string, string>>;
}

/** A relay without a cache: no header, nothing to do. */
export const UNCACHED: CacheStep = { header: {} };
const MISS = { "x-renio-cache": "miss" } as const;
const BYPASS = { "x-renio-cache": "bypass" } as const;

/** Looks the call up (routed to `target`, its upstream body `body`) and serves a hit. */
export async function cacheStep(cache: ResponseCache, deps: CacheHitDeps, start: JournalStart, input: CallInput, caller: CacheCaller, target: Target, body: Uint8Array): Promise<CacheStep> {
  const call = cache.begin(caller, input.request.headers, { route: input.route.path, provider: target.provider.id, upstreamModel: target.upstreamModel }, body);
  if (call === undefined) return { header: BYPASS };
  const entry = await call.lookup();
  if (entry === undefined) return { call, header: MISS };
  return { hit: await serveCacheHit(deps, start, input, entry, responseIds(input)), header: {} };
}

/** The request id headers of an answer (Anthropic's API also names it `request-id`: the Anthropic SDK's `_request_id`). */
export function responseIds(input: CallInput): Record<string, string> {
  return input.route.wire === "anthropic" ? { "x-request-id": input.requestId, "request-id": input.requestId } : { "x-request-id": input.requestId };
}
