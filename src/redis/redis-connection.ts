import { createHash } from "node:crypto";
import { readFileSync } from "node:fs";
import { Redis } from "ioredis";
import type { RedisConfig } from "../config/redis-schema.ts";

/** A Lua script run on the server in one round trip (EVALSHA, loaded on first use). */
export type RedisScript = (keys: readonly string[], args: readonly (string | number)[]) => Promise<unknown>;

/**
 * One relay's connection to the Redis (or Valkey) server it shares limits and the cache
 * through. Commands never queue while the server is away: they fail at once (or after
 * `commandTimeoutMs` when it stops answering), so a caller can apply its own fallback; the
 * connection keeps reconnecting in the background and is used again as soon as it is back.
 */
export interface RedisConnection {
  /** `prefix` + `name`: every key Renio writes. */
  key(name: string): string;
  /** A script bound to this connection. */
  script(source: string): RedisScript;
  get(key: string): Promise<Uint8Array | null>;
  /** Sets `key` to `value`, expiring after `ttlMs`. */
  set(key: string, value: Uint8Array, ttlMs: number): Promise<void>;
  /** One PING's round trip (ms). */
  ping(): Promise<number>;
  /** True while connected and ready. */
  readonly up: boolean;
  /** Resolves once connected, or after `ms` (false: not connected yet; commands fail until it is). */
  ready(ms: number): Promise<boolean>;
  close(): Promise<void>;
}

/** Opens a connection (never throws: a server that is down is reported by `up` and by failing commands). */
export function openRedis(config: RedisConfig): RedisConnection {
  const tls = config.caFile === undefined ? {} : { tls: { ca: readFileSync(config.caFile, "utf8") } };
  const client = new Redis(config.url, {
    ...tls,
    connectTimeout: config.connectTimeoutMs,
    commandTimeout: config.commandTimeoutMs,
    enableOfflineQueue: false,
    maxRetriesPerRequest: 0,
    // Reconnect for ever, at most a second apart: a server back is used again without a restart.
    retryStrategy: (attempt: number) => Math.min(50 * attempt, 1000),
    lazyConnect: false,
  });
  // Errors surface through the commands that fail; the event only needs a listener (the URL may hold a password: never logged).
  client.on("error", () => {});
  const prefix = config.keyPrefix;
  // Every script is loaded as soon as the connection is ready (and again after each reconnect, as a
  // restarted server has forgotten them): a script's first use then never takes the NOSCRIPT
  // detour, which would let a command sent after it on this connection run before it.
  const sources = new Set<string>();
  const load = (source: string) => void client.script("LOAD", source).catch(() => {});
  client.on("ready", () => sources.forEach(load));
  return {
    key: (name) => prefix + name,
    script(source) {
      const sha = createHash("sha1").update(source).digest("hex");
      if (!sources.has(source)) {
        sources.add(source);
        if (client.status === "ready") load(source);
      }
      return async (keys, args) => {
        try {
          return await client.evalsha(sha, keys.length, ...keys, ...args);
        } catch (error) {
          if (!(error instanceof Error) || !error.message.startsWith("NOSCRIPT")) throw error;
          return await client.eval(source, keys.length, ...keys, ...args);
        }
      };
    },
    async get(key) {
      const value = await client.getBuffer(key);
      return value === null ? null : new Uint8Array(value.buffer, value.byteOffset, value.byteLength);
    },
    async set(key, value, ttlMs) {
      await client.set(key, Buffer.from(value.buffer, value.byteOffset, value.byteLength), "PX", Math.max(1, Math.ceil(ttlMs)));
    },
    async ping() {
      const started = performance.now();
      await client.ping();
      return performance.now() - started;
    },
    get up() {
      return client.status === "ready";
    },
    ready(ms) {
      if (client.status === "ready") return Promise.resolve(true);
      return new Promise((resolve) => {
        const done = (value: boolean) => {
          clearTimeout(timer);
          client.off("ready", onReady);
          resolve(value);
        };
        const onReady = () => done(true);
        const timer = setTimeout(() => done(false), ms);
        client.on("ready", onReady);
      });
    },
    async close() {
      client.disconnect();
    },
  };
}
