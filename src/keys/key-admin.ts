import { randomBytes } from "node:crypto";
import type { KeyConfig } from "../config/config-schema.ts";
import { RelayError } from "../shared/relay-error.ts";
import type { Idempotency, IssueResult, KeyChange, KeyState, KeyStore } from "./key-store.ts";
import { displayPrefix, newKeySecret, type KeySecret } from "./key-secret.ts";

/** A key as the admin API and `renio keys` show it (never a secret or a hash). */
export interface KeyView {
  readonly id: string;
  /** `store`: managed at run time; `config`: from the config file, read-only here. */
  readonly source: "store" | "config";
  readonly project: string;
  readonly models: readonly string[];
  readonly regions: readonly string[] | null;
  readonly metadata: Readonly<Record<string, unknown>>;
  /** The secret's first characters (`rn-…`); null for config keys. */
  readonly prefix: string | null;
  readonly status: "active" | "expired" | "revoked";
  /** ISO 8601 times, or null. */
  readonly expiresAt: string | null;
  readonly revokedAt: string | null;
  /** Until when the secret replaced by the last rotation still works. */
  readonly previousSecretValidUntil: string | null;
  readonly createdAt: string | null;
  readonly updatedAt: string | null;
}

/** A new key, validated by the caller (zod in http, flags in the CLI). */
export interface KeyInput {
  /** Absent: generated (`key-<hex>`). */
  readonly id?: string;
  readonly project: string;
  readonly models: readonly string[];
  readonly regions: readonly string[] | null;
  readonly metadata: Readonly<Record<string, unknown>>;
  /** Epoch ms. */
  readonly expiresAt: number | null;
}

/** What create and rotate answer: the key and its secret, shown this once (again on an idempotent replay). */
export interface IssuedKey {
  readonly key: KeyView;
  readonly secret: string;
  /** True when this is the first answer of the same Idempotency-Key, replayed. */
  readonly replayed: boolean;
}

/** Which keys {@link KeyAdmin.list} answers (an absent field does not narrow the list). */
export interface KeyFilter {
  readonly project?: string;
  readonly status?: KeyView["status"];
  readonly source?: KeyView["source"];
}

/** The key operations behind `/admin/keys` and `renio keys`, each audited as `actor`. */
export interface KeyAdmin {
  /** Config keys first, then stored keys by id. */
  list(filter?: KeyFilter): Promise<KeyView[]>;
  /** 404 `key_not_found`. */
  get(id: string): Promise<KeyView>;
  /** Same `idempotencyKey` (and input): same answer, one key. */
  create(input: KeyInput, actor: string, idempotencyKey?: string): Promise<IssuedKey>;
  update(id: string, change: KeyChange, actor: string): Promise<KeyView>;
  /** `graceSeconds`: how long the old secret keeps working (0: not at all). Same `idempotencyKey`: same answer, one rotation. */
  rotate(id: string, options: { readonly graceSeconds: number; readonly idempotencyKey?: string }, actor: string): Promise<IssuedKey>;
  revoke(id: string, actor: string): Promise<KeyView>;
}

/** What {@link createKeyAdmin} works with. */
export interface KeyAdminDeps {
  readonly store: KeyStore;
  readonly keySecret: KeySecret;
  /** The config's keys (listed, read-only; their ids are taken). */
  readonly configKeys: readonly KeyConfig[];
  /** True for a configured public model name. */
  readonly isModel: (name: string) => boolean;
  /** Epoch ms now. */
  readonly clock?: () => number;
  /** Called after every change (the relay refreshes its keyring at once). */
  readonly changed?: () => Promise<void>;
}

/** Creates the key operations over a store. */
export function createKeyAdmin(deps: KeyAdminDeps): KeyAdmin {
  const { store, keySecret } = deps;
  const clock = deps.clock ?? Date.now;
  const configured = new Map(deps.configKeys.map((key) => [key.id, key]));
  const changed = async () => void (await deps.changed?.());

  const checkModels = (models: readonly string[] | undefined) =>
    models?.forEach((model, i) => {
      if (model !== "*" && !deps.isModel(model)) throw new RelayError(400, "invalid_request", `models.${i}: unknown model "${model}"`);
    });
  const stored = (id: string) => {
    if (configured.has(id)) throw new RelayError(409, "key_read_only", `key "${id}" comes from the config file; change it there`);
  };
  const view = (state: KeyState): KeyView => storedView(state, clock());
  const idempotencyOf = (key: string | undefined, request: unknown, secret: string): Idempotency | undefined =>
    key === undefined ? undefined : { key, fingerprint: JSON.stringify(request), sealedSecret: keySecret.seal(secret) };
  /** The answer of a create or rotation: a replay's first secret, or the new one (then the keyring learns it at once). */
  const issued = async (result: IssueResult, secret: string): Promise<IssuedKey> => {
    if (result.replayed !== null) return { key: view(result.key), secret: keySecret.unseal(result.replayed.sealedSecret), replayed: true };
    await changed();
    return { key: view(result.key), secret, replayed: false };
  };

  return {
    list: async (filter = {}) => {
      const { keys } = await store.keysChangedSince(0);
      const now = clock();
      const all = [...[...configured.values()].map(configView), ...keys.map((key) => storedView(key, now)).sort((a, b) => a.id.localeCompare(b.id))];
      return all.filter(
        (key) =>
          (filter.project === undefined || key.project === filter.project) &&
          (filter.status === undefined || key.status === filter.status) &&
          (filter.source === undefined || key.source === filter.source),
      );
    },
    get: async (id) => {
      const config = configured.get(id);
      if (config !== undefined) return configView(config);
      const key = await store.getKey(id);
      if (key === undefined) throw new RelayError(404, "key_not_found", `no key with id "${id}"`);
      return view(key);
    },
    create: async (input, actor, idempotencyKey) => {
      const id = input.id ?? `key-${randomBytes(8).toString("hex")}`;
      if (configured.has(id)) throw new RelayError(409, "key_exists", `a config key has id "${id}"`);
      checkModels(input.models);
      const secret = newKeySecret();
      // The fingerprint holds the input as given: a generated id differs on every retry.
      const idempotency = idempotencyOf(idempotencyKey, ["key.create", input], secret);
      const result = await store.createKey({ ...input, id, secretHash: keySecret.hash(secret), prefix: displayPrefix(secret), idempotency }, { actor, at: clock() });
      return await issued(result, secret);
    },
    update: async (id, change, actor) => {
      stored(id);
      checkModels(change.models);
      const state = await store.updateKey(id, change, { actor, at: clock() });
      await changed();
      return view(state);
    },
    rotate: async (id, options, actor) => {
      stored(id);
      const now = clock();
      const secret = newKeySecret();
      const idempotency = idempotencyOf(options.idempotencyKey, ["key.rotate", id, options.graceSeconds], secret);
      const result = await store.rotateKey(
        { id, secretHash: keySecret.hash(secret), prefix: displayPrefix(secret), previousValidUntil: now + options.graceSeconds * 1000, idempotency },
        { actor, at: now },
      );
      return await issued(result, secret);
    },
    revoke: async (id, actor) => {
      stored(id);
      const state = await store.revokeKey(id, { actor, at: clock() });
      await changed();
      return view(state);
    },
  };
}

const iso = (ms: number | null): string | null => (ms === null ? null : new Date(ms).toISOString());

function storedView(key: KeyState, now: number): KeyView {
  return {
    id: key.id,
    source: "store",
    project: key.project,
    models: key.models,
    regions: key.regions,
    metadata: key.metadata,
    prefix: key.prefix,
    status: key.revokedAt !== null ? "revoked" : key.expiresAt !== null && key.expiresAt <= now ? "expired" : "active",
    expiresAt: iso(key.expiresAt),
    revokedAt: iso(key.revokedAt),
    previousSecretValidUntil: key.previousValidUntil !== null && key.previousValidUntil > now ? iso(key.previousValidUntil) : null,
    createdAt: iso(key.createdAt),
    updatedAt: iso(key.updatedAt),
  };
}

function configView(key: KeyConfig): KeyView {
  return {
    id: key.id,
    source: "config",
    project: key.project,
    models: key.models,
    regions: key.regions ?? null,
    metadata: {},
    prefix: null,
    status: "active",
    expiresAt: null,
    revokedAt: null,
    previousSecretValidUntil: null,
    createdAt: null,
    updatedAt: null,
  };
}
