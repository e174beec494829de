import { randomUUID } from "node:crypto";
import { mkdirSync } from "node:fs";
import { dirname } from "node:path";
import { redisCacheStore, sqliteCacheStore } from "../cache/cache-store.ts";
import { CacheStats } from "../cache/response-cache.ts";
import process from "node:process";
import type { Config } from "../config/config-schema.ts";
import { openRedis, type RedisConnection } from "../redis/redis-connection.ts";
import { PendingSettlements, RateStoreStats, renewLeases } from "../limits/shared-rate-limiter.ts";
import type { SnapshotShared } from "../relay/relay-snapshot.ts";
import type { Runtime } from "../runtime/runtime.ts";

/** What a relay keeps beside the store: Redis (shared rate limits, the shared cache) and the response cache. */
export interface SharedServices {
  /** The response cache's store and counts (absent: no `cache` in the config). */
  readonly cache: SnapshotShared["cache"];
  /** For `rateLimits.store: redis` (absent: no Redis configured). */
  readonly limits: SnapshotShared["sharedLimits"];
  /** The Redis connection, when configured. */
  readonly redis: RedisConnection | undefined;
  /** Stops renewing leases and closes the connection. */
  close(): Promise<void>;
}

/**
 * Connects to `redis` when the config has it. A server that is down at startup does not stop
 * the relay: calls meet `rateLimits.onStoreDown` until it answers.
 */
export async function openShared(config: Config, runtime: Runtime, leaseMs: () => number): Promise<SharedServices> {
  if (config.redis === undefined) {
    const cache = config.cache && { store: openLocalCache(config, runtime), stats: new CacheStats() };
    return { limits: undefined, cache, redis: undefined, close: async () => void (await cache?.store.close()) };
  }
  const redis = openRedis(config.redis);
  if (!(await redis.ready(config.redis.connectTimeoutMs))) process.stderr.write("renio: redis: not connected yet; retrying in the background (rate limits follow rateLimits.onStoreDown meanwhile)\n");
  const stats = new RateStoreStats();
  stats.up = redis.up;
  const stopRenewing = renewLeases(redis, stats, leaseMs);
  const settlements = new PendingSettlements();
  const cache = config.cache && { store: config.cache.store === "redis" ? redisCacheStore(redis) : openLocalCache(config, runtime), stats: new CacheStats() };
  return {
    limits: { redis, stats, settlements, relayId: randomUUID() },
    cache,
    redis,
    async close() {
      stopRenewing();
      // The last calls' settlements go out before the connection closes.
      settlements.send();
      await cache?.store.close();
      await redis.close();
    },
  };
}

/** The cache's SQLite file (`cache.path`), its folder created if needed. */
function openLocalCache(config: Config, runtime: Runtime) {
  const { path, maxTotalBytes } = config.cache!;
  mkdirSync(dirname(path), { recursive: true });
  return sqliteCacheStore(runtime.openSqlite(path), maxTotalBytes);
}
