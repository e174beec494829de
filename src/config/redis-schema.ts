import { z } from "zod";
import { positiveInt } from "./schema-numbers.ts";

/**
 * The Redis (or Valkey) server relays share rate limits and the response cache through
 * (docs/running-several.md). `rediss://` connects over TLS; user and password go in the URL
 * (`rediss://renio:${REDIS_PASSWORD}@redis.internal:6380/0`).
 */
export const redisSchema = z.strictObject({
  url: z.string().regex(/^rediss?:\/\/[^\s]+$/, "must start with redis:// or rediss:// (TLS)").describe("`redis://` or `rediss://` (TLS); user and password in the URL, from `${ENV}` (running-several.md)"),
  /** TLS only: a PEM file of the CA that signed the server's certificate (default: the system's CAs). */
  caFile: z.string().min(1).optional().describe("a PEM file of the CA of the server's certificate (TLS)"),
  /** How long a connection attempt may take (ms). */
  connectTimeoutMs: positiveInt.default(2000).describe("how long a connection attempt may take"),
  /** How long one command may wait for its answer before the server counts as down (ms). */
  commandTimeoutMs: positiveInt.default(500).describe("how long a command may wait before the server counts as down"),
  /** Prefix of every key Renio writes (several Renio deployments may share one server). */
  keyPrefix: z.string().regex(/^[A-Za-z0-9:_.-]{0,64}$/, "use up to 64 letters, digits, : _ . -").default("renio:").describe("prefix of every key Renio writes"),
});

/** Redis connection settings. */
export type RedisConfig = z.infer<typeof redisSchema>;
