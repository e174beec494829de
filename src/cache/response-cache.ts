import type { CacheConfig } from "../config/cache-schema.ts";
import type { Usage } from "../shared/usage.ts";
import { cacheKeyOf, type CacheKeyParts } from "./cache-key.ts";
import { cacheModeOf, cacheNamespace, type CacheCaller } from "./cache-policy.ts";
import { decodeEntry, encodeEntry, type CacheEntry } from "./cache-entry.ts";
import type { CacheStore } from "./cache-store.ts";

/** The cache's counts since the relay started (kept across reloads; read by /metrics). */
export class CacheStats {
  hits = 0;
  misses = 0;
  bypasses = 0;
  /** Answers stored. */
  stored = 0;
  /** Lookups and writes the store did not answer (a lookup that fails is a miss). */
  errors = 0;
  /** The original cost of every answer served from the cache. */
  savedCost = 0;
}

/** The cache's counts as plain numbers (one event loop's, or every loop's summed). */
export type CacheCounts = Readonly<Pick<CacheStats, "hits" | "misses" | "bypasses" | "stored" | "errors" | "savedCost">>;

/** The counts of several event loops' caches, summed. */
export function sumCacheCounts(all: readonly CacheCounts[]): CacheCounts {
  const sum = new CacheStats();
  for (const counts of all) {
    sum.hits += counts.hits;
    sum.misses += counts.misses;
    sum.bypasses += counts.bypasses;
    sum.stored += counts.stored;
    sum.errors += counts.errors;
    sum.savedCost += counts.savedCost;
  }
  return sum;
}

/** How a call the cache may store ended: stored only when it ended well with the provider's final usage. */
export interface CacheVerdict {
  readonly ok: boolean;
  readonly usage: Usage | null;
  readonly cost: number | null;
}

/** One call's use of the cache. */
export interface CacheCall {
  /** The stored answer it may be served, if any (a store that fails counts as a miss). */
  lookup(): Promise<CacheEntry | undefined>;
  /** The response with its body copied aside as the client reads it; stored once the body ended and `settled` said ok. */
  capture(response: Response): Response;
  /** How the call ended (undefined: not in a way that may be stored). */
  settled(verdict: CacheVerdict | undefined): void;
}

/** The response cache under one config snapshot. */
export interface ResponseCache {
  /** The call's cache use, or undefined when it bypasses the cache (`x-renio-cache: bypass`). */
  begin(caller: CacheCaller, headers: Headers, parts: Omit<CacheKeyParts, "namespace">, body: Uint8Array): CacheCall | undefined;
  readonly stats: CacheStats;
}

/** Builds the cache of `config` over `store` (the store and the stats outlive reloads). */
export function createResponseCache(config: CacheConfig, store: CacheStore, stats: CacheStats, clock: () => number = Date.now): ResponseCache {
  return {
    stats,
    begin(caller, headers, parts, body) {
      const mode = cacheModeOf(config, caller, headers);
      const key = mode.use ? cacheKeyOf({ ...parts, namespace: cacheNamespace(config, caller) }, body) : undefined;
      if (!mode.use || key === undefined) {
        stats.bypasses++;
        return undefined;
      }
      let verdict: CacheVerdict | undefined | null = null;
      let chunks: Uint8Array[] | null = null;
      let contentType = "";
      const keep = () => {
        if (verdict === null || chunks === null) return;
        const ended = verdict;
        if (ended === undefined || !ended.ok || ended.usage === null) return;
        const bytes = encodeEntry({ storedAt: clock(), contentType, usage: ended.usage, cost: ended.cost, chunks });
        if (bytes.byteLength > config.maxEntryBytes) return;
        store.put(key, bytes, config.ttlSeconds * 1000).then(
          () => void stats.stored++,
          () => void stats.errors++,
        );
      };
      return {
        async lookup() {
          if (!mode.read) {
            stats.misses++;
            return undefined;
          }
          let entry: CacheEntry | undefined;
          try {
            const bytes = await store.get(key);
            entry = bytes === null ? undefined : decodeEntry(bytes);
          } catch {
            stats.errors++;
          }
          if (entry === undefined || clock() - entry.storedAt > mode.maxAgeMs) {
            stats.misses++;
            return undefined;
          }
          stats.hits++;
          stats.savedCost += entry.cost ?? 0;
          return entry;
        },
        capture(response) {
          if (!mode.store || response.status !== 200 || response.body === null) return response;
          contentType = response.headers.get("content-type") ?? "application/json";
          const copied: Uint8Array[] = [];
          let size = 0;
          const tee = new TransformStream<Uint8Array, Uint8Array>({
            transform(chunk, controller) {
              size += chunk.byteLength;
              // Past the entry bound nothing is kept; the answer still streams through whole.
              if (size <= config.maxEntryBytes) copied.push(chunk.slice());
              controller.enqueue(chunk);
            },
            flush() {
              if (size > config.maxEntryBytes) return;
              chunks = copied;
              keep();
            },
          });
          return new Response(response.body.pipeThrough(tee), { status: response.status, statusText: response.statusText, headers: response.headers });
        },
        settled(ended) {
          verdict = ended;
          keep();
        },
      };
    },
  };
}
