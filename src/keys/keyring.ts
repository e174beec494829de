import { createHash } from "node:crypto";
import type { KeyConfig } from "../config/config-schema.ts";
import type { StoredKey } from "./key-store.ts";
import { STORE_KEY_PREFIX, type KeySecret } from "./key-secret.ts";

/** A caller's Renio key, as the relay sees it after authentication. */
export interface CallerKey {
  readonly id: string;
  readonly project: string;
  /** Public model names allowed, or null for all. */
  readonly models: ReadonlySet<string> | null;
  /** Provider regions allowed, or null for all. */
  readonly regions: ReadonlySet<string> | null;
}

/** Why a known secret no longer works, and since when (epoch ms). */
export interface KeyRefusal {
  readonly reason: "revoked" | "expired" | "rotated";
  readonly keyId: string;
  readonly at: number;
}

/**
 * Finds the key a presented secret belongs to: config keys (sha256) and stored keys
 * (HMAC-SHA256 under the server secret, secrets starting `rn-`). Only hashes are kept.
 */
export interface Keyring {
  /** The live key of `secret`: one hash and one Map lookup (and a clock read for stored keys). */
  find(secret: string): CallerKey | undefined;
  /** For a secret {@link find} did not accept: why, when it is a known key's (revoked, expired, rotated out). */
  refusal(secret: string): KeyRefusal | undefined;
  /** Replaces stored keys by their new versions (a revoked key stays, to say so). */
  applyStoredKeys(keys: readonly StoredKey[]): void;
  /** Replaces the config's keys (a reload); stored keys stay. */
  replaceConfigKeys(keys: readonly KeyConfig[]): void;
  /** Config keys plus stored keys. */
  readonly size: number;
}

/** Options of {@link createKeyring}. */
export interface KeyringOptions {
  /** Hashes stored keys; without it only config keys are known. */
  readonly keySecret?: KeySecret;
  /** Epoch ms now (tests drive expiry and grace periods with it). */
  readonly clock?: () => number;
}

/** sha256 hex of a secret, as stored in config (`sha256:<hex>`). */
export function hashSecret(secret: string): string {
  return createHash("sha256").update(secret).digest("hex");
}

/** A hash of a stored key: its current secret or the one its last rotation replaced. */
interface StoredEntry {
  readonly caller: CallerKey;
  /** Epoch ms from which it no longer works (Infinity: until changed). */
  readonly until: number;
  /** What {@link Keyring.refusal} says from `until` on. */
  readonly after: KeyRefusal;
}

/** Builds the keyring once at startup (plaintext config secrets are hashed and dropped); stored keys come and go. */
export function createKeyring(keys: readonly KeyConfig[], options: KeyringOptions = {}): Keyring {
  const clock = options.clock ?? Date.now;
  const keySecret = options.keySecret;
  let byHash = configKeysByHash(keys);
  const stored = new Map<string, StoredEntry>();
  /** Hashes of each stored key id, to drop them when the key changes. */
  const hashesOf = new Map<string, string[]>();

  const storedEntry = (secret: string): StoredEntry | undefined =>
    keySecret !== undefined && secret.startsWith(STORE_KEY_PREFIX) ? stored.get(keySecret.hash(secret)) : undefined;

  return {
    get size() {
      return byHash.size + hashesOf.size;
    },
    find: (secret) => {
      const entry = storedEntry(secret);
      if (entry !== undefined) return clock() < entry.until ? entry.caller : undefined;
      return byHash.get(hashSecret(secret));
    },
    refusal: (secret) => {
      const entry = storedEntry(secret);
      return entry !== undefined && clock() >= entry.until ? entry.after : undefined;
    },
    replaceConfigKeys: (next) => {
      byHash = configKeysByHash(next);
    },
    applyStoredKeys: (changed) => {
      for (const key of changed) {
        for (const hash of hashesOf.get(key.id) ?? []) stored.delete(hash);
        const caller = callerOf(key.id, key.project, key.models, key.regions);
        const expires = key.expiresAt ?? Infinity;
        const ends = (until: number, reason: KeyRefusal["reason"]): StoredEntry => {
          // The earliest of revocation, expiry and (old secrets) the end of the grace period wins.
          const revoked = key.revokedAt ?? Infinity;
          const end = Math.min(until, expires, revoked);
          const why = end === revoked ? "revoked" : end === expires ? "expired" : reason;
          return { caller, until: end, after: { reason: why, keyId: key.id, at: end } };
        };
        stored.set(key.secretHash, ends(Infinity, "revoked"));
        const hashes = [key.secretHash];
        if (key.previousHash !== null) {
          stored.set(key.previousHash, ends(key.previousValidUntil ?? 0, "rotated"));
          hashes.push(key.previousHash);
        }
        hashesOf.set(key.id, hashes);
      }
    },
  };
}

/** Config keys by the sha256 hex of their secret (plaintext secrets are hashed here and dropped). */
function configKeysByHash(keys: readonly KeyConfig[]): Map<string, CallerKey> {
  const byHash = new Map<string, CallerKey>();
  for (const key of keys) {
    const hash = key.secret.startsWith("sha256:") ? key.secret.slice("sha256:".length) : hashSecret(key.secret);
    byHash.set(hash, callerOf(key.id, key.project, key.models, key.regions ?? null));
  }
  return byHash;
}

function callerOf(id: string, project: string, models: readonly string[], regions: readonly string[] | null): CallerKey {
  return { id, project, models: models.includes("*") ? null : new Set(models), regions: regions ? new Set(regions) : null };
}

/** The secret a client presented: `Authorization: Bearer …` or Anthropic's `x-api-key`. */
export function presentedSecret(headers: Headers): string | undefined {
  const authorization = headers.get("authorization");
  if (authorization !== null) {
    const match = /^Bearer\s+(\S+)\s*$/i.exec(authorization);
    if (match) return match[1];
  }
  return headers.get("x-api-key") ?? undefined;
}
