import type { RateLimitConfig } from "../config/config-schema.ts";
import { RelayError } from "../shared/relay-error.ts";
import type { Usage, WireFormat } from "../shared/usage.ts";
import type { RateBucket } from "./rate-bucket.ts";
import { RateStateBook, type RateSlots } from "./rate-state.ts";
import { rateLimitHeaders, retryAfterHeaders, type RateReport } from "./rate-limit-headers.ts";

/** Epoch ms, monotonic (injectable in tests). */
export type RateClock = () => number;

/** The default clock: epoch ms that never go back (performance time, not the wall clock). */
export const monotonicEpochMs: RateClock = () => performance.timeOrigin + performance.now();

/** What a concurrency refusal suggests waiting: Renio cannot know when a call in flight ends. */
const CONCURRENCY_RETRY_MS = 1000;

/** One configured limit and its live state (this instance's). */
interface RateRule {
  /** `key app-1`, `project support`, `model gpt-4o`: how messages name it. */
  readonly name: string;
  readonly requests: RateBucket | null;
  readonly tokens: RateBucket | null;
  readonly concurrent: number | null;
  /** Shared with the scope's rules before and after a reload (rate-state.ts). */
  readonly slots: RateSlots;
}

/** What the limiter needs about a call. */
export interface RateCall {
  readonly keyId: string;
  readonly project: string;
  /** The public model name the call asked for. */
  readonly model: string;
  /** Upper bound of the call's input + output tokens (the same bound the budget reserves). */
  readonly tokens: number;
  /** The route's dialect, for the headers. */
  readonly wire: WireFormat;
}

/** A call's hold on the limits that apply to it; exactly one of `end` or `cancel` runs. */
export interface RateTicket {
  /** Headers for the response (empty when no requests or tokens limit applies). */
  readonly headers: Readonly<Record<string, string>>;
  /**
   * The call ended (any way): frees its concurrency slot and settles its tokens from the final
   * usage (null when none: the reservation stays taken when the provider may have billed, else
   * it is all given back).
   */
  end(usage: Usage | null, mayHaveBeenBilled: boolean): void;
  /** The call was not sent after all (budget refusal, store down): gives everything back. */
  cancel(): void;
}

/** One configured limit as it stands now (for /metrics). */
export interface RateLimitState {
  readonly scope: "key" | "project" | "model";
  readonly id: string;
  /** `requests` and `tokens`: per minute; `concurrent`: calls in flight. */
  readonly kind: "requests" | "tokens" | "concurrent";
  readonly limit: number;
  /** What fits now (requests, tokens) or slots free (concurrent). */
  readonly remaining: number;
}

/** Enforces the configured rate limits (in memory, or shared: shared-rate-limiter.ts). */
export interface RateLimiter {
  /**
   * Admits a call under every limit that applies, or throws (rejects with) RelayError 429
   * `rate_limit_exceeded`. In memory it answers at once; shared limits answer after their store.
   */
  admit(call: RateCall): RateTicket | Promise<RateTicket>;
  /** Every configured limit as it stands now (read at a scrape, not per call). */
  state(): RateLimitState[];
}

/** The in-memory limiter: it decides at once. */
export interface LocalRateLimiter extends RateLimiter {
  admit(call: RateCall): RateTicket;
}

const NO_RULES: readonly RateRule[] = [];

/** The ticket of a call no limit applies to: nothing held, nothing to give back (shared: no allocation). */
export const UNLIMITED: RateTicket = { headers: {}, end() {}, cancel() {} };

/** Builds the rules once from config; their state lives in `state` (one per relay, kept across reloads). */
export function createRateLimiter(limits: readonly RateLimitConfig[], clock: RateClock = monotonicEpochMs, state: RateStateBook = new RateStateBook()): LocalRateLimiter {
  const byKey = new Map<string, RateRule[]>();
  const byProject = new Map<string, RateRule[]>();
  const byModel = new Map<string, RateRule[]>();
  const builtAt = clock();
  for (const limit of limits) {
    const [kind, id] = Object.entries(limit.scope)[0] as ["key" | "project" | "model", string];
    const index = kind === "key" ? byKey : kind === "project" ? byProject : byModel;
    const name = `${kind} ${id}`;
    const rule: RateRule = {
      name,
      requests: limit.requestsPerMinute === undefined ? null : state.bucket(name, "requests", limit.requestsPerMinute, builtAt),
      tokens: limit.tokensPerMinute === undefined ? null : state.bucket(name, "tokens", limit.tokensPerMinute, builtAt),
      concurrent: limit.concurrent ?? null,
      slots: state.slotsOf(name),
    };
    index.set(id, [...(index.get(id) ?? []), rule]);
  }
  if (limits.length === 0) return { admit: () => UNLIMITED, state: () => [] };

  return {
    state() {
      const now = clock();
      const states: RateLimitState[] = [];
      for (const [scope, index] of [["key", byKey], ["project", byProject], ["model", byModel]] as const) {
        for (const [id, rules] of index) {
          for (const rule of rules) {
            if (rule.requests) states.push({ scope, id, kind: "requests", limit: rule.requests.limit, remaining: rule.requests.remaining(now) });
            if (rule.tokens) states.push({ scope, id, kind: "tokens", limit: rule.tokens.limit, remaining: rule.tokens.remaining(now) });
            if (rule.concurrent !== null) states.push({ scope, id, kind: "concurrent", limit: rule.concurrent, remaining: Math.max(0, rule.concurrent - rule.slots.inFlight) });
          }
        }
      }
      return states;
    },
    admit(call) {
      const forKey = byKey.get(call.keyId) ?? NO_RULES;
      const forProject = byProject.get(call.project) ?? NO_RULES;
      const forModel = byModel.get(call.model) ?? NO_RULES;
      const count = forKey.length + forProject.length + forModel.length;
      if (count === 0) return UNLIMITED;
      const rules = count === forKey.length ? forKey : count === forProject.length ? forProject : count === forModel.length ? forModel : [...forKey, ...forProject, ...forModel];
      const now = clock();
      refuseOverLimit(rules, call, now);
      for (const rule of rules) {
        rule.requests?.take(1);
        rule.tokens?.take(call.tokens);
        rule.slots.inFlight++;
      }
      return ticketFor(rules, call, now);
    },
  };
}

/** Throws the 429 for the limit that keeps the call waiting longest, if any does. */
function refuseOverLimit(rules: readonly RateRule[], call: RateCall, now: number): void {
  let waitMs = 0;
  let reason = "";
  for (const rule of rules) {
    const requestsWait = rule.requests === null ? 0 : rule.requests.waitMs(1, now);
    if (requestsWait > waitMs) [waitMs, reason] = [requestsWait, `${rule.name}: ${count(rule.requests!.limit, "request")} per minute`];
    const tokensWait = rule.tokens === null ? 0 : rule.tokens.waitMs(call.tokens, now);
    if (tokensWait === Number.POSITIVE_INFINITY) throw tooLargeForLimit(call, rule.name, rule.tokens!.limit, reportHeaders(rules, call.wire, now));
    if (tokensWait > waitMs) [waitMs, reason] = [tokensWait, `${rule.name}: ${count(rule.tokens!.limit, "token")} per minute`];
    if (rule.concurrent !== null && rule.slots.inFlight >= rule.concurrent && CONCURRENCY_RETRY_MS > waitMs) {
      [waitMs, reason] = [CONCURRENCY_RETRY_MS, `${rule.name}: ${count(rule.concurrent, "concurrent call")}`];
    }
  }
  if (waitMs === 0) return;
  throw new RelayError(429, "rate_limit_exceeded", `Rate limit reached for ${reason}; retry in ${formatSeconds(waitMs)}`, {
    ...reportHeaders(rules, call.wire, now),
    ...retryAfterHeaders(waitMs),
  });
}

/** The 429 for a call whose token bound exceeds a tokens-per-minute limit outright (no wait helps). */
export function tooLargeForLimit(call: RateCall, name: string, limit: number, headers: Record<string, string>): RelayError {
  return new RelayError(
    429,
    "rate_limit_exceeded",
    `This request may use up to ${call.tokens} tokens (its body's bytes as input plus its output limit), more than ${name} allows: ${limit} tokens per minute; send a smaller request or a lower max_tokens`,
    { ...headers, "x-should-retry": "false" },
  );
}

function ticketFor(rules: readonly RateRule[], call: RateCall, now: number): RateTicket {
  let held = true;
  const release = (unusedTokens: number, request: boolean) => {
    if (!held) return;
    held = false;
    for (const rule of rules) {
      if (request) rule.requests?.give(1);
      if (unusedTokens !== 0) rule.tokens?.give(unusedTokens);
      rule.slots.inFlight--;
    }
  };
  return {
    headers: reportHeaders(rules, call.wire, now),
    end(usage, mayHaveBeenBilled) {
      const reported = usage === null ? Number.NaN : usage.inputTokens + usage.cachedInputTokens + usage.outputTokens;
      // No (or no usable) final usage: the budget's rule, the reservation when the provider may have billed.
      const used = Number.isFinite(reported) ? reported : mayHaveBeenBilled ? call.tokens : 0;
      release(call.tokens - used, false);
    },
    cancel: () => release(call.tokens, true),
  };
}

/** Headers for the tightest requests limit and the tightest tokens limit among `rules`. */
function reportHeaders(rules: readonly RateRule[], wire: WireFormat, now: number): Record<string, string> {
  let requests: RateReport | null = null;
  let tokens: RateReport | null = null;
  for (const rule of rules) {
    if (rule.requests !== null) requests = tighter(requests, rule.requests, now);
    if (rule.tokens !== null) tokens = tighter(tokens, rule.tokens, now);
  }
  return requests === null && tokens === null ? {} : rateLimitHeaders(wire, requests, tokens, now);
}

function tighter(report: RateReport | null, bucket: RateBucket, now: number): RateReport {
  const remaining = bucket.remaining(now);
  if (report !== null && (report.remaining < remaining || (report.remaining === remaining && report.limit <= bucket.limit))) return report;
  return { limit: bucket.limit, remaining, resetMs: bucket.resetMs(now) };
}

/** `1 request`, `60 requests`. */
export function count(n: number, unit: string): string {
  return `${n} ${unit}${n === 1 ? "" : "s"}`;
}

/** ms as a message says them: `1.5 s`. */
export function formatSeconds(ms: number): string {
  return `${(Math.ceil(ms) / 1000).toFixed(3).replace(/\.?0+$/, "")} s`;
}
