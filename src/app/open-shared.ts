import { randomUUID } from "node:crypto";
import process from "node:process";
import type { Config } from "../config/config-schema.ts";
import { openRedis, type RedisConnection } from "../redis/redis-connection.ts";
import { RateStoreStats, renewLeases } from "../limits/shared-rate-limiter.ts";
import type { SnapshotShared } from "../relay/relay-snapshot.ts";
import type { Runtime } from "../runtime/runtime.ts";

/** What a relay shares with other relays beyond the store: Redis, for rate limits (and the cache). */
export interface SharedServices {
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
export async function openShared(config: Config, _runtime: Runtime, leaseMs: () => number): Promise<SharedServices> {
  if (config.redis === undefined) return { limits: undefined, redis: undefined, close: async () => {} };
  const redis = openRedis(config.redis);
  if (!(await redis.ready(config.redis.connectTimeoutMs))) process.stderr.write("renio: redis: not connected yet; retrying in the background (rate limits follow rateLimits.onStoreDown meanwhile)\n");
  const stats = new RateStoreStats();
  const stopRenewing = renewLeases(redis, stats, leaseMs);
  return {
    limits: { redis, stats, relayId: randomUUID() },
    redis,
    async close() {
      stopRenewing();
      await redis.close();
    },
  };
}
