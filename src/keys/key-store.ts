import type { AuditActor } from "../shared/audit.ts";

/** The keys' store port: keys managed at run time, as stored and as changed. storage/ implements it. */

/** A stored key as the admin API and the audit show it: everything but its hashes. */
export interface KeyState {
  readonly id: string;
  readonly project: string;
  /** Public model names; `["*"]` for all. */
  readonly models: readonly string[];
  /** Regions, or null for all. */
  readonly regions: readonly string[] | null;
  readonly metadata: Readonly<Record<string, unknown>>;
  /** The secret's first characters (not secret). */
  readonly prefix: string;
  /** Epoch ms; null: never expires. */
  readonly expiresAt: number | null;
  /** Epoch ms; null: not revoked. */
  readonly revokedAt: number | null;
  /** Epoch ms until which the secret replaced by the last rotation still works; null: none. */
  readonly previousValidUntil: number | null;
  readonly createdAt: number;
  readonly updatedAt: number;
}

/** A stored key with its hashes (what relays load; never shown). */
export interface StoredKey extends KeyState {
  readonly secretHash: string;
  readonly previousHash: string | null;
}

/** An Idempotency-Key of a request that issues a secret, with what it asked and the secret sealed for a replay. */
export interface Idempotency {
  readonly key: string;
  /** What the request asked (action, target, parameters): the same key with another request is refused. */
  readonly fingerprint: string;
  readonly sealedSecret: string;
}

/** What {@link KeyStore.createKey} writes. */
export interface NewKey {
  readonly id: string;
  readonly project: string;
  readonly models: readonly string[];
  readonly regions: readonly string[] | null;
  readonly metadata: Readonly<Record<string, unknown>>;
  readonly expiresAt: number | null;
  readonly secretHash: string;
  readonly prefix: string;
  readonly idempotency?: Idempotency;
}

/** Fields a PATCH changes (absent: unchanged; `expiresAt: null` clears the expiry). */
export interface KeyChange {
  readonly project?: string;
  readonly models?: readonly string[];
  readonly regions?: readonly string[] | null;
  readonly metadata?: Readonly<Record<string, unknown>>;
  readonly expiresAt?: number | null;
}

/** A rotation: the new secret's hash, until when the old one still works, and its idempotency record. */
export interface KeyRotation {
  readonly id: string;
  readonly secretHash: string;
  readonly prefix: string;
  /** Epoch ms until which the old secret works (the rotation time itself: not at all). */
  readonly previousValidUntil: number;
  readonly idempotency?: Idempotency;
}

/** What a create or rotation returns: the key after it, and (replays) the sealed secret of the first answer. */
export interface IssueResult {
  readonly key: KeyState;
  /** Set when the Idempotency-Key was seen before: this is the first answer's key and secret. */
  readonly replayed: { readonly sealedSecret: string } | null;
}

/** Every stored key changed by a write after `version`, and the current version. */
export interface KeyChanges {
  readonly version: number;
  readonly keys: readonly StoredKey[];
}

/**
 * Keys managed at run time (admin API, `renio keys`). Every write is one transaction that also
 * records its audit event, and bumps the store's keys version (relays poll it).
 */
export interface KeyStore {
  /** 409 `key_exists` when the id is taken; 409 `idempotency_key_reused`; replays the first answer of an Idempotency-Key. */
  createKey(key: NewKey, actor: AuditActor): Promise<IssueResult>;
  /** 404 `key_not_found`; 409 `key_revoked`. */
  updateKey(id: string, change: KeyChange, actor: AuditActor): Promise<KeyState>;
  /** 404, 409 `key_revoked`, 409 `idempotency_key_reused`; replays the first answer of an Idempotency-Key. */
  rotateKey(rotation: KeyRotation, actor: AuditActor): Promise<IssueResult>;
  /** 404 `key_not_found`; revoking twice is a no-op. */
  revokeKey(id: string, actor: AuditActor): Promise<KeyState>;
  getKey(id: string): Promise<StoredKey | undefined>;
  /** The keys version and every key written after `version` (0: all keys). One cheap query when nothing changed. */
  keysChangedSince(version: number): Promise<KeyChanges>;
  /** The renio_meta value of `key`, written as `value` first when absent (e.g. the generated key secret). */
  ensureMeta(key: string, value: string): Promise<string>;
}
