import type { CacheConfig } from "../config/cache-schema.ts";

/** What the cache does for one call. */
export type CacheMode =
  /** Look up, and store a fresh answer on a miss; `maxAgeMs`: the oldest entry the caller accepts. */
  | { readonly use: true; readonly read: boolean; readonly store: boolean; readonly maxAgeMs: number }
  /** Neither: the call is not cached (`x-renio-cache: bypass`). */
  | { readonly use: false };

const BYPASS: CacheMode = { use: false };

/** Who the call is, as the policy reads it. */
export interface CacheCaller {
  readonly keyId: string;
  readonly project: string;
  readonly model: string;
}

/**
 * Decides per call, from the config's opt-in lists and the request's headers:
 * `x-renio-cache: use` or `Cache-Control: max-age=N` opt a call in (N bounds the age of an answer
 * it accepts); `Cache-Control: no-cache` skips the lookup but stores the fresh answer;
 * `no-store` and `x-renio-cache: bypass` skip the cache entirely.
 */
export function cacheModeOf(config: CacheConfig, caller: CacheCaller, headers: Headers): CacheMode {
  const asked = headers.get("x-renio-cache")?.trim().toLowerCase();
  if (asked === "bypass") return BYPASS;
  const control = (headers.get("cache-control") ?? "").toLowerCase();
  if (/(^|,)\s*no-store\s*(,|$)/.test(control)) return BYPASS;
  const maxAge = /(^|,)\s*max-age\s*=\s*(\d{1,10})\s*(,|$)/.exec(control)?.[2];
  const optedIn = asked === "use" || maxAge !== undefined || config.models.includes(caller.model) || config.projects.includes(caller.project) || config.keys.includes(caller.keyId);
  if (!optedIn) return BYPASS;
  const ttlMs = config.ttlSeconds * 1000;
  return { use: true, read: !/(^|,)\s*no-cache\s*(,|$)/.test(control), store: true, maxAgeMs: maxAge === undefined ? ttlMs : Math.min(ttlMs, Number(maxAge) * 1000) };
}

/** The namespace a caller's answers live in: its project (default), its key, or everyone's. */
export function cacheNamespace(config: CacheConfig, caller: CacheCaller): string {
  return config.namespace === "global" ? "*" : config.namespace === "key" ? `key:${caller.keyId}` : `project:${caller.project}`;
}
