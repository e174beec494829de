import { z } from "zod";
import { positiveInt } from "./schema-numbers.ts";
import { nameText } from "./schema-text.ts";

/**
 * The exact-match response cache (docs/cache.md). Opt-in: a call is cached when its model, key
 * or project is listed here, or when it asks with `x-renio-cache: use` or `Cache-Control: max-age`.
 */
export const cacheSchema = z.strictObject({
  /** `sqlite`: a file beside this relay (one instance). `redis`: the `redis` server, shared by every relay using it. */
  store: z.enum(["sqlite", "redis"]).default("sqlite").describe("`sqlite` (a file beside this relay) or `redis` (shared)"),
  /** The SQLite file (`store: sqlite`). */
  path: z.string().min(1).default(".renio/cache.db").describe("the SQLite file"),
  /** How long an answer is served from the cache (s). */
  ttlSeconds: positiveInt.default(3600).describe("how long an answer is served"),
  /** Answers larger than this are not stored (bytes). */
  maxEntryBytes: positiveInt.default(1024 * 1024).describe("larger answers are not stored"),
  /** The cache's total size; the oldest entries go first (bytes; with Redis, bound the server itself with maxmemory). */
  maxTotalBytes: positiveInt.default(256 * 1024 * 1024).describe("the SQLite file's bound (oldest first); with Redis, use `maxmemory`"),
  /**
   * Who shares answers: `project` (default: the keys of one project), `key` (each key its own),
   * `global` (every caller: only for data no tenant must keep from another).
   */
  namespace: z.enum(["project", "key", "global"]).default("project").describe("who shares answers: `project`, `key` or `global`"),
  /** Public model names whose calls are cached. */
  models: z.array(nameText()).default([]).describe("whose calls are cached (besides requests that ask)"),
  /** Projects whose calls are cached. */
  projects: z.array(nameText()).default([]).describe("whose calls are cached (besides requests that ask)"),
  /** Key ids whose calls are cached. */
  keys: z.array(nameText()).default([]).describe("whose calls are cached (besides requests that ask)"),
});

/** Response cache settings. */
export type CacheConfig = z.infer<typeof cacheSchema>;
