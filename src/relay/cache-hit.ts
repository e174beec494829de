import type { CacheEntry } from "../cache/cache-entry.ts";
import { replayResponse } from "../cache/cache-entry.ts";
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
export async function serveCacheHit({ ledger, observer, trace, currency }: CacheHitDeps, start: JournalStart, input: CallInput, entry: CacheEntry, ids: Record<string, string>): Promise<Response> {
  const admission = await ledger.admit(start, []);
  if (!admission.admitted) throw new Error("an admission without charges was refused");
  const totalMs = performance.now() - input.startedAt;
  const completion: JournalCompletion = { outcome: "cache_hit", status: 200, ttfbMs: totalMs, totalMs, upstreamMs: null, usage: entry.usage, cost: 0, costEstimated: false, savedCost: entry.cost, errorCode: null, responseBody: null };
  ledger.complete(start.id, completion, [], 0);
  observer?.ended(start, completion, 0);
  trace.end({ start, ...completion, currency });
  return replayResponse(entry, { ...ids, "x-renio-cache": "hit" });
}
