import type { RateLimitConfig, RateLimitsConfig } from "../config/config-schema.ts";
import type { RedisConnection } from "../redis/redis-connection.ts";
import { RelayError } from "../shared/relay-error.ts";
import type { Usage } from "../shared/usage.ts";
import { rateLimitHeaders, retryAfterHeaders, type RateReport } from "./rate-limit-headers.ts";
import { count, createRateLimiter, formatSeconds, monotonicEpochMs, tooLargeForLimit, UNLIMITED, type RateCall, type RateClock, type RateLimiter, type RateLimitState, type RateTicket } from "./rate-limiter.ts";
import { ADMIT_SCRIPT, RENEW_SCRIPT, SETTLE_SCRIPT } from "./rate-limit-scripts.ts";
import type { RateStateBook } from "./rate-state.ts";

/** How the shared store has fared (one per relay, kept across reloads; read by /metrics). */
export class RateStoreStats {
  /** Decisions and settlements the store did not answer. */
  failures = 0;
  /** Calls decided in memory at this relay's share while the store was down. */
  fallbacks = 0;
  /** Calls refused with 503 while the store was down. */
  refusals = 0;
  /** False from a failed round trip until the next one that succeeds. */
  up = true;
  /** Leases this relay holds, renewed while their calls run (lease id -> its lease sets). */
  readonly leases = new Map<string, readonly string[]>();
}

/**
 * Settlements waiting to be sent (one per relay, kept across reloads). A call's settlement is sent
 * once the turn of the event loop that ended it is over, so its round trip never delays the answer
 * being written; and before any decision sent after it, so a slot it frees or tokens it gives back
 * are there for the next call on the same connection.
 */
export class PendingSettlements {
  private readonly waiting: Array<() => void> = [];
  private scheduled = false;

  /** Sends `settle` after this turn (or before the next decision, whichever comes first). */
  add(settle: () => void): void {
    this.waiting.push(settle);
    if (this.scheduled) return;
    this.scheduled = true;
    setImmediate(() => {
      this.scheduled = false;
      this.send();
    });
  }

  /** Sends every settlement waiting, in the order they came. */
  send(): void {
    if (this.waiting.length === 0) return;
    for (const settle of this.waiting.splice(0)) settle();
  }
}

/** What a shared limiter needs besides the config. */
export interface SharedLimitsDeps {
  readonly redis: RedisConnection;
  readonly stats: RateStoreStats;
  readonly settlements: PendingSettlements;
  /** This relay's own state, for the fallback at its share. */
  readonly localState: RateStateBook;
  /** Unique per relay process: lease ids start with it. */
  readonly relayId: string;
  readonly clock?: RateClock;
}

/** One configured limit with its keys on the server. */
interface SharedRule {
  readonly scope: "key" | "project" | "model";
  readonly id: string;
  readonly name: string;
  readonly keys: readonly [string, string, string];
  /** Requests, tokens per minute, concurrent (0: not limited). */
  readonly limits: readonly [number, number, number];
  /** The last levels the server reported (for /metrics): requests, tokens remaining, leases held. */
  seen: [number, number, number];
}

const NO_RULES: readonly SharedRule[] = [];

/** The 503 when limits cannot be checked and the config says to refuse. */
function storeDown(): RelayError {
  return new RelayError(503, "rate_limit_store_unavailable", "Rate limits cannot be checked: the shared rate-limit store (Redis) does not answer; retry shortly", retryAfterHeaders(1000));
}

/**
 * Rate limits shared by every relay using one Redis: each call's limits (key, project, model;
 * requests, tokens, calls in flight) are decided by one script in one round trip, so N relays
 * together admit exactly the limit. Tokens are reserved at the call's bound and settled to its
 * usage; calls in flight hold leases this relay renews while they run, so a relay that dies
 * frees its slots within `leaseMs`. When the server does not answer, `onStoreDown` applies.
 */
export function createSharedRateLimiter(config: RateLimitsConfig, deps: SharedLimitsDeps): RateLimiter {
  const { redis, stats } = deps;
  const clock = deps.clock ?? monotonicEpochMs;
  if (config.limits.length === 0) return { admit: () => UNLIMITED, state: () => [] };
  const admitScript = redis.script(ADMIT_SCRIPT);
  const settleScript = redis.script(SETTLE_SCRIPT);
  const byScope = { key: new Map<string, SharedRule[]>(), project: new Map<string, SharedRule[]>(), model: new Map<string, SharedRule[]>() };
  for (const limit of config.limits) {
    const rule = ruleOf(limit, redis);
    const index = byScope[rule.scope];
    index.set(rule.id, [...(index.get(rule.id) ?? []), rule]);
  }
  const local = config.onStoreDown === "local" ? createRateLimiter(config.limits.map((limit) => shareOf(limit, config.relays)), clock, deps.localState) : null;
  let leaseCount = 0;

  const fallBack = (call: RateCall): RateTicket => {
    stats.up = false;
    stats.failures++;
    if (local === null) {
      stats.refusals++;
      throw storeDown();
    }
    stats.fallbacks++;
    return local.admit(call);
  };

  return {
    state() {
      const states: RateLimitState[] = [];
      for (const index of Object.values(byScope)) {
        for (const rules of index.values()) {
          for (const { scope, id, limits, seen } of rules) {
            if (limits[0] > 0) states.push({ scope, id, kind: "requests", limit: limits[0], remaining: seen[0] });
            if (limits[1] > 0) states.push({ scope, id, kind: "tokens", limit: limits[1], remaining: seen[1] });
            if (limits[2] > 0) states.push({ scope, id, kind: "concurrent", limit: limits[2], remaining: Math.max(0, limits[2] - seen[2]) });
          }
        }
      }
      return states;
    },
    async admit(call) {
      const rules = [...(byScope.key.get(call.keyId) ?? NO_RULES), ...(byScope.project.get(call.project) ?? NO_RULES), ...(byScope.model.get(call.model) ?? NO_RULES)];
      if (rules.length === 0) return UNLIMITED;
      for (const rule of rules) {
        if (rule.limits[1] > 0 && call.tokens > rule.limits[1]) throw tooLargeForLimit(call, rule.name, rule.limits[1], {});
      }
      const keys = rules.flatMap((rule) => rule.keys);
      const limits = rules.flatMap((rule) => rule.limits);
      const lease = `${deps.relayId}:${++leaseCount}`;
      let reply: number[];
      // Settlements of calls already answered go first: the slots and tokens they give back count for this call.
      deps.settlements.send();
      try {
        reply = (await admitScript(keys, [call.tokens, config.leaseMs, lease, ...limits])) as number[];
      } catch {
        return fallBack(call);
      }
      stats.up = true;
      const now = clock();
      const headers = reportHeaders(rules, reply, call, now);
      if (reply[0] !== 1) {
        const waitMs = reply[1]!;
        const at = reply[2]! - 1;
        const rule = rules[Math.floor(at / 3)]!;
        const kind = at % 3;
        const reason = kind === 0 ? `${count(rule.limits[0], "request")} per minute` : kind === 1 ? `${count(rule.limits[1], "token")} per minute` : count(rule.limits[2], "concurrent call");
        throw new RelayError(429, "rate_limit_exceeded", `Rate limit reached for ${rule.name}: ${reason}; retry in ${formatSeconds(waitMs)}`, { ...headers, ...retryAfterHeaders(waitMs) });
      }
      const leaseKeys = rules.filter((rule) => rule.limits[2] > 0).map((rule) => rule.keys[2]);
      if (leaseKeys.length > 0) stats.leases.set(lease, leaseKeys);
      const limitsTokens = rules.some((rule) => rule.limits[1] > 0);
      let held = true;
      const release = (request: number, tokens: number) => {
        if (!held) return;
        held = false;
        stats.leases.delete(lease);
        // Nothing to give back (a request spent, no tokens to settle, no lease): no second round trip.
        if (request === 0 && leaseKeys.length === 0 && (tokens === 0 || !limitsTokens)) return;
        deps.settlements.add(() =>
          settleScript(keys, [request, tokens, lease, ...limits]).catch(() => {
            // Not settled: the tokens refill within the minute, the lease expires within leaseMs.
            stats.failures++;
            stats.up = false;
          }),
        );
      };
      return {
        headers,
        end(usage: Usage | null, mayHaveBeenBilled: boolean) {
          const reported = usage === null ? Number.NaN : usage.inputTokens + usage.cachedInputTokens + usage.outputTokens;
          const used = Number.isFinite(reported) ? reported : mayHaveBeenBilled ? call.tokens : 0;
          release(0, call.tokens - used);
        },
        cancel: () => release(1, call.tokens),
      };
    },
  };
}

/**
 * Renews the leases of this relay's calls in flight every third of `leaseMs`, until stopped.
 * Returns the stop function.
 */
export function renewLeases(redis: RedisConnection, stats: RateStoreStats, leaseMs: () => number): () => void {
  const renew = redis.script(RENEW_SCRIPT);
  let timer: ReturnType<typeof setTimeout> | undefined;
  let stopped = false;
  const tick = () => {
    const keys: string[] = [];
    const ids: string[] = [];
    for (const [lease, sets] of stats.leases) {
      for (const set of sets) {
        keys.push(set);
        ids.push(lease);
      }
    }
    const done = keys.length === 0 ? Promise.resolve(0) : renew(keys, [leaseMs(), ...ids]);
    done.catch(() => {}).finally(() => {
      if (!stopped) timer = setTimeout(tick, Math.max(100, Math.floor(leaseMs() / 3)));
      (timer as { unref?: () => void } | undefined)?.unref?.();
    });
  };
  tick();
  return () => {
    stopped = true;
    clearTimeout(timer);
  };
}

function ruleOf(limit: RateLimitConfig, redis: RedisConnection): SharedRule {
  const [scope, id] = Object.entries(limit.scope)[0] as ["key" | "project" | "model", string];
  const name = `${scope} ${id}`;
  // One hash tag: every limit key lands in one slot, so a script may touch several on a cluster-aware proxy.
  const base = redis.key(`{rl}:${name}:`);
  return {
    scope,
    id,
    name,
    keys: [`${base}requests`, `${base}tokens`, `${base}leases`],
    limits: [limit.requestsPerMinute ?? 0, limit.tokensPerMinute ?? 0, limit.concurrent ?? 0],
    seen: [limit.requestsPerMinute ?? 0, limit.tokensPerMinute ?? 0, 0],
  };
}

/** This relay's share of a limit: each number divided by the relays sharing it (at least 1). */
function shareOf(limit: RateLimitConfig, relays: number): RateLimitConfig {
  const share = (n: number | undefined) => (n === undefined ? undefined : Math.max(1, Math.floor(n / relays)));
  return { scope: limit.scope, requestsPerMinute: share(limit.requestsPerMinute), tokensPerMinute: share(limit.tokensPerMinute), concurrent: share(limit.concurrent) };
}

/** The headers from the server's reply (the tightest requests and tokens limits), and what /metrics shows of each rule. */
function reportHeaders(rules: readonly SharedRule[], reply: readonly number[], call: RateCall, now: number): Record<string, string> {
  let requests: RateReport | null = null;
  let tokens: RateReport | null = null;
  rules.forEach((rule, i) => {
    const at = 3 + i * 5;
    const [reqLeft, reqReset, tokLeft, tokReset, held] = reply.slice(at, at + 5) as [number, number, number, number, number];
    rule.seen = [reqLeft, tokLeft, held];
    if (rule.limits[0] > 0) requests = tighter(requests, { limit: rule.limits[0], remaining: reqLeft, resetMs: reqReset });
    if (rule.limits[1] > 0) tokens = tighter(tokens, { limit: rule.limits[1], remaining: tokLeft, resetMs: tokReset });
  });
  return requests === null && tokens === null ? {} : rateLimitHeaders(call.wire, requests, tokens, now);
}

function tighter(report: RateReport | null, candidate: RateReport): RateReport {
  if (report !== null && (report.remaining < candidate.remaining || (report.remaining === candidate.remaining && report.limit <= candidate.limit))) return report;
  return candidate;
}
