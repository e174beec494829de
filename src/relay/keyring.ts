import { createHash } from "node:crypto";
import type { KeyConfig } from "../config/config-schema.ts";

/** A caller's Renio key, as the relay sees it after authentication. */
export interface CallerKey {
  readonly id: string;
  readonly project: string;
  /** Public model names allowed, or null for all. */
  readonly models: ReadonlySet<string> | null;
  /** Provider regions allowed, or null for all. */
  readonly regions: ReadonlySet<string> | null;
}

/** Finds the key a presented secret belongs to. Only sha256 hashes are kept. */
export interface Keyring {
  find(secret: string): CallerKey | undefined;
  readonly size: number;
}

/** sha256 hex of a secret, as stored in config (`sha256:<hex>`). */
export function hashSecret(secret: string): string {
  return createHash("sha256").update(secret).digest("hex");
}

/** Builds the keyring once at startup; plaintext secrets from config are hashed and dropped. */
export function createKeyring(keys: readonly KeyConfig[]): Keyring {
  const byHash = new Map<string, CallerKey>();
  for (const key of keys) {
    const hash = key.secret.startsWith("sha256:") ? key.secret.slice("sha256:".length) : hashSecret(key.secret);
    byHash.set(hash, {
      id: key.id,
      project: key.project,
      models: key.models.includes("*") ? null : new Set(key.models),
      regions: key.regions ? new Set(key.regions) : null,
    });
  }
  return {
    size: byHash.size,
    find: (secret) => byHash.get(hashSecret(secret)),
  };
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
