import { sql, type Kysely, type Selectable } from "kysely";
import { RelayError } from "../../shared/relay-error.ts";
import type { AuditActor } from "../../shared/audit.ts";
import { insertAudit } from "./store-audit.ts";
import type { ApiKeyTable, Database } from "../store-schema.ts";
import type { Idempotency, IssueResult, KeyChange, KeyChanges, KeyRotation, KeyState, NewKey, StoredKey } from "../../keys/key-store.ts";

/** How long the answer of a create or rotation is replayed for its Idempotency-Key. */
export const IDEMPOTENCY_TTL_MS = 24 * 60 * 60 * 1000;

/** The `keys_version` of the store and the keys written after `since` (0: all), oldest change first. */
export async function keysChangedSince(db: Kysely<Database>, since: number): Promise<KeyChanges> {
  // One round trip in the common case: the version row, then rows only when it moved.
  const row = await db.selectFrom("renio_meta").select("value").where("key", "=", "keys_version").executeTakeFirst();
  const version = Number(row?.value ?? 0);
  if (version <= since) return { version, keys: [] };
  const rows = await db.selectFrom("api_key").selectAll().where("version", ">", since).where("version", "<=", version).orderBy("version").execute();
  return { version, keys: rows.map(storedKeyOf) };
}

/** One stored key by id. */
export async function getKey(db: Kysely<Database>, id: string): Promise<StoredKey | undefined> {
  const row = await db.selectFrom("api_key").selectAll().where("id", "=", id).executeTakeFirst();
  return row === undefined ? undefined : storedKeyOf(row);
}

/** Inserts a key (409 `key_exists` when the id is taken) once per Idempotency-Key, and audits it. */
export async function createKeyIn(trx: Kysely<Database>, key: NewKey, actor: AuditActor): Promise<IssueResult> {
  // Every key write takes the version row's lock first: writes of one id (and one Idempotency-Key) serialize there.
  const version = await nextVersion(trx);
  const replay = await replayOf(trx, key.idempotency, actor.at);
  if (replay !== null) return replay;
  if ((await trx.selectFrom("api_key").select("id").where("id", "=", key.id).executeTakeFirst()) !== undefined) {
    throw new RelayError(409, "key_exists", `a key with id "${key.id}" already exists`);
  }
  await trx
    .insertInto("api_key")
    .values({
      id: key.id,
      project: key.project,
      models: JSON.stringify(key.models),
      regions: key.regions === null ? null : JSON.stringify(key.regions),
      metadata: JSON.stringify(key.metadata),
      secret_hash: key.secretHash,
      secret_prefix: key.prefix,
      previous_hash: null,
      previous_until: null,
      expires_at: key.expiresAt,
      revoked_at: null,
      created_at: actor.at,
      updated_at: actor.at,
      version,
    })
    .execute();
  const after = stateOf((await getKey(trx, key.id))!);
  await remember(trx, key.idempotency, after, actor.at);
  await insertAudit(trx, { ...actor, action: "key.create", target: `key:${key.id}`, before: null, after });
  return { key: after, replayed: null };
}

/** Applies a PATCH (404 unknown id, 409 revoked) and audits it. */
export async function updateKeyIn(trx: Kysely<Database>, id: string, change: KeyChange, actor: AuditActor): Promise<KeyState> {
  const version = await nextVersion(trx);
  const before = await changeableKey(trx, id);
  await trx
    .updateTable("api_key")
    .set({
      ...(change.project === undefined ? {} : { project: change.project }),
      ...(change.models === undefined ? {} : { models: JSON.stringify(change.models) }),
      ...(change.regions === undefined ? {} : { regions: change.regions === null ? null : JSON.stringify(change.regions) }),
      ...(change.metadata === undefined ? {} : { metadata: JSON.stringify(change.metadata) }),
      ...(change.expiresAt === undefined ? {} : { expires_at: change.expiresAt }),
      updated_at: actor.at,
      version,
    })
    .where("id", "=", id)
    .execute();
  const after = stateOf((await getKey(trx, id))!);
  await insertAudit(trx, { ...actor, action: "key.update", target: `key:${id}`, before: stateOf(before), after });
  return after;
}

/**
 * Rotates a key once per Idempotency-Key: a key seen before (within 24 h) with the same request
 * replays the first answer; with another request it is refused (409). Audited.
 */
export async function rotateKeyIn(trx: Kysely<Database>, rotation: KeyRotation, actor: AuditActor): Promise<IssueResult> {
  const version = await nextVersion(trx);
  const replay = await replayOf(trx, rotation.idempotency, actor.at);
  if (replay !== null) return replay;
  const before = await changeableKey(trx, rotation.id);
  await trx
    .updateTable("api_key")
    .set({
      secret_hash: rotation.secretHash,
      secret_prefix: rotation.prefix,
      previous_hash: before.secretHash,
      previous_until: rotation.previousValidUntil,
      updated_at: actor.at,
      version,
    })
    .where("id", "=", rotation.id)
    .execute();
  const after = stateOf((await getKey(trx, rotation.id))!);
  await remember(trx, rotation.idempotency, after, actor.at);
  await insertAudit(trx, { ...actor, action: "key.rotate", target: `key:${rotation.id}`, before: stateOf(before), after });
  return { key: after, replayed: null };
}

/**
 * The first answer of an Idempotency-Key seen within 24 h (older ones are dropped first), or
 * null; 409 `idempotency_key_reused` when it came with another request.
 */
async function replayOf(trx: Kysely<Database>, idempotency: Idempotency | undefined, now: number): Promise<IssueResult | null> {
  if (idempotency === undefined) return null;
  await trx.deleteFrom("admin_idempotency").where("created_at", "<", now - IDEMPOTENCY_TTL_MS).execute();
  const seen = await trx.selectFrom("admin_idempotency").selectAll().where("idempotency_key", "=", idempotency.key).executeTakeFirst();
  if (seen === undefined) return null;
  if (seen.fingerprint !== idempotency.fingerprint) {
    throw new RelayError(409, "idempotency_key_reused", "this Idempotency-Key was already used for a different request; use a new key");
  }
  return { key: JSON.parse(seen.answer) as KeyState, replayed: { sealedSecret: seen.sealed_secret } };
}

/** Keeps the answer (without its secret) and the sealed secret for replays of its Idempotency-Key. */
async function remember(trx: Kysely<Database>, idempotency: Idempotency | undefined, answer: KeyState, now: number): Promise<void> {
  if (idempotency === undefined) return;
  await trx
    .insertInto("admin_idempotency")
    .values({ idempotency_key: idempotency.key, fingerprint: idempotency.fingerprint, answer: JSON.stringify(answer), sealed_secret: idempotency.sealedSecret, created_at: now })
    .execute();
}

/** Revokes a key at once (404 unknown id); revoking a revoked key changes nothing and records nothing. */
export async function revokeKeyIn(trx: Kysely<Database>, id: string, actor: AuditActor): Promise<KeyState> {
  const version = await nextVersion(trx);
  const before = await existingKey(trx, id);
  if (before.revokedAt !== null) return stateOf(before);
  await trx.updateTable("api_key").set({ revoked_at: actor.at, updated_at: actor.at, version }).where("id", "=", id).execute();
  const after = stateOf((await getKey(trx, id))!);
  await insertAudit(trx, { ...actor, action: "key.revoke", target: `key:${id}`, before: stateOf(before), after });
  return after;
}

/** The value stored under `key` in renio_meta, written as `value` first if there is none. */
export async function ensureMetaIn(trx: Kysely<Database>, key: string, value: string): Promise<string> {
  await trx.insertInto("renio_meta").values({ key, value }).onConflict((oc) => oc.column("key").doNothing()).execute();
  const row = await trx.selectFrom("renio_meta").select("value").where("key", "=", key).executeTakeFirstOrThrow();
  return row.value;
}

/** A key without its hashes. */
export function stateOf(key: StoredKey): KeyState {
  const { secretHash: _hash, previousHash: _previous, ...state } = key;
  return state;
}

/**
 * Bumps `keys_version` and returns it. The update locks the row until commit (PostgreSQL), so
 * versions commit in order: a relay that has seen version N has seen every write up to N.
 */
async function nextVersion(trx: Kysely<Database>): Promise<number> {
  const row = await trx
    .updateTable("renio_meta")
    .set({ value: sql<string>`cast(cast(value as bigint) + 1 as text)` })
    .where("key", "=", "keys_version")
    .returning("value")
    .executeTakeFirstOrThrow();
  return Number(row.value);
}

async function existingKey(trx: Kysely<Database>, id: string): Promise<StoredKey> {
  const key = await getKey(trx, id);
  if (key === undefined) throw new RelayError(404, "key_not_found", `no stored key with id "${id}"`);
  return key;
}

async function changeableKey(trx: Kysely<Database>, id: string): Promise<StoredKey> {
  const key = await existingKey(trx, id);
  if (key.revokedAt !== null) throw new RelayError(409, "key_revoked", `key "${id}" is revoked; a revoked key cannot be changed (create a new one)`);
  return key;
}

const num = (v: number | null): number | null => (v === null ? null : Number(v));

function storedKeyOf(r: Selectable<ApiKeyTable>): StoredKey {
  return {
    id: r.id,
    project: r.project,
    models: JSON.parse(r.models) as string[],
    regions: r.regions === null ? null : (JSON.parse(r.regions) as string[]),
    metadata: JSON.parse(r.metadata) as Record<string, unknown>,
    prefix: r.secret_prefix,
    expiresAt: num(r.expires_at),
    revokedAt: num(r.revoked_at),
    previousValidUntil: r.previous_hash === null ? null : num(r.previous_until),
    createdAt: Number(r.created_at),
    updatedAt: Number(r.updated_at),
    secretHash: r.secret_hash,
    previousHash: r.previous_hash,
  };
}
