import { createBudgetCatalog, type BudgetCatalog } from "../budgets/budget-catalog.ts";
import { createCallerIdentities, type CallerIdentities } from "../callers/call-identity.ts";
import type { Config } from "../config/config-schema.ts";
import { createProviders } from "../providers/provider-registry.ts";
import { createGuardrails, type Guardrails } from "../guardrails/guardrails.ts";
import type { Fetch } from "../providers/provider.ts";
import { createCallPricing, type CallPricing } from "../pricing/call-pricing.ts";
import { createKeyring, type Keyring } from "../keys/keyring.ts";
import { createModelRouter, type ModelRouter } from "../routing/model-router.ts";
import { createRateLimiter, type RateClock, type RateLimiter } from "../limits/rate-limiter.ts";
import { RateStateBook } from "../limits/rate-state.ts";
import { createResponseCache, type CacheStats, type ResponseCache } from "../cache/response-cache.ts";
import type { CacheStore } from "../cache/cache-store.ts";
import { createSharedRateLimiter, type SharedLimitsDeps } from "../limits/shared-rate-limiter.ts";
import type { TargetHealthBook } from "../routing/target-health.ts";

/**
 * Everything a call reads from the config, built together and never changed: a reload builds a
 * new snapshot and swaps it in whole. A call reads the current snapshot once, when it arrives,
 * and uses that one to its end (settlement included), so a reload never mixes two configs in a call.
 */
export interface RelaySnapshot {
  readonly config: Config;
  readonly keyring: Keyring;
  readonly router: ModelRouter;
  /** The price book and budget plan. */
  readonly pricing: CallPricing;
  /** The config's rate limits (their state, per instance, is kept across reloads: rate-state.ts; on a worker loop, the owner loop's). */
  readonly rateLimiter: RateLimiter;
  /** The response cache; absent when the config has none (calls skip the step). */
  readonly cache?: ResponseCache;
  /** The guardrail policies; absent when the config has none (calls skip the step). */
  readonly guardrails?: Guardrails;
  /** Who each call is for (end user, team, tags), by its key's policy. */
  readonly callers: CallerIdentities;
}

/** Where the relay finds the current snapshot: one property, replaced (never mutated) on reload. */
export interface SnapshotCell {
  current: RelaySnapshot;
}

/** What a snapshot shares with the running relay rather than builds from the config. */
export interface SnapshotShared {
  /** The rate limits' clock (tests inject one). */
  readonly clock?: RateClock;
  /** The budgets in force (the config's and the store's); default: the config's alone. */
  readonly budgets?: BudgetCatalog;
  /** The keyring of config and stored keys (its config keys replaced on reload); default: the config's keys alone. */
  readonly keyring?: Keyring;
  /** Targets' health (cooldowns), kept across reloads; default: a fresh book. */
  readonly health?: TargetHealthBook;
  /** The rate limits' buckets and calls in flight, kept across reloads; default: a fresh book. */
  readonly rateState?: RateStateBook;
  /** The Redis connection and its stats, for `rateLimits.store: redis` (absent: limits stay in memory). */
  readonly sharedLimits?: Omit<SharedLimitsDeps, "localState" | "clock">;
  /** Where cached answers are kept and the cache's counts (absent: no cache opened). */
  readonly cache?: { readonly store: CacheStore; readonly stats: CacheStats };
}

/** Builds the providers, keyring, router, pricing and rate limits of a validated config. */
export function createRelaySnapshot(config: Config, fetch: Fetch, shared: SnapshotShared = {}): RelaySnapshot {
  const budgets = shared.budgets ?? createBudgetCatalog(config.budgets, config.budget.mode, config.teams);
  return {
    config,
    keyring: shared.keyring ?? createKeyring(config.keys),
    router: createModelRouter(config, createProviders(config, fetch), shared.health),
    pricing: createCallPricing(config, budgets),
    callers: createCallerIdentities(config.keys, budgets.teamOf),
    rateLimiter:
      config.rateLimits.store === "redis" && shared.sharedLimits !== undefined
        ? createSharedRateLimiter(config.rateLimits, { ...shared.sharedLimits, localState: shared.rateState ?? new RateStateBook(), clock: shared.clock })
        : createRateLimiter(config.rateLimits.limits, shared.clock, shared.rateState),
    cache: config.cache !== undefined && shared.cache !== undefined ? createResponseCache(config.cache, shared.cache.store, shared.cache.stats) : undefined,
    guardrails: createGuardrails(config.guardrails),
  };
}
