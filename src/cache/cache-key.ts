import { createHash } from "node:crypto";

/** What determines an answer, besides the body: where it was asked, of which model, by whose namespace. */
export interface CacheKeyParts {
  readonly namespace: string;
  /** The route's path (`/v1/chat/completions`, `/v1/messages`): the caller's wire format. */
  readonly route: string;
  readonly provider: string;
  readonly upstreamModel: string;
}

/**
 * The cache key of a call: SHA-256 over its parts and its JSON body in canonical form (object
 * keys sorted at every depth, no insignificant whitespace), so two requests that differ only in
 * key order or spacing share an entry. Undefined when the body is not JSON.
 */
export function cacheKeyOf(parts: CacheKeyParts, body: Uint8Array): string | undefined {
  let parsed: unknown;
  try {
    parsed = JSON.parse(new TextDecoder().decode(body));
  } catch {
    return undefined;
  }
  return createHash("sha256").update(JSON.stringify([parts.namespace, parts.route, parts.provider, parts.upstreamModel, canonical(parsed)])).digest("hex");
}

/** `value` with every object's keys in sorted order (arrays keep theirs: order is meaning). */
function canonical(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(canonical);
  if (value === null || typeof value !== "object") return value;
  const sorted: Record<string, unknown> = Object.create(null) as Record<string, unknown>;
  for (const key of Object.keys(value).sort()) sorted[key] = canonical((value as Record<string, unknown>)[key]); // plain-object: a null-prototype copy of parsed JSON
  return sorted;
}
