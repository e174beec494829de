import type { Config } from "../config/config-schema.ts";
import { createKeyAdmin, type KeyAdmin } from "./key-admin.ts";
import { keySecretOf, resolveServerSecret } from "./key-secret.ts";
import { startKeySync } from "./key-sync.ts";
import { createKeyring, type Keyring } from "./keyring.ts";
import type { KeyStore, StoredKey } from "./key-store.ts";

/** A relay's keys: the keyring it authenticates with and, with a store, the key operations. */
export interface RelayKeys {
  readonly keyring: Keyring;
  /** Absent without a store (`journal.enabled: false`): config keys only. */
  readonly admin: KeyAdmin | undefined;
  /** The server secret stored keys are hashed under (absent without a store). */
  readonly serverSecret: string | undefined;
  /** Stops polling the store. */
  stop(): void;
}

/**
 * The keyring of config keys and the store's keys (loaded now, refreshed at once after this
 * relay's own changes and every `server.keyRefreshMs` for other instances' changes), and the
 * key operations of the admin API. Throws StoreOpenError when `server.keySecret` does not match the store.
 */
export async function openRelayKeys(
  config: Config,
  store: KeyStore | undefined,
  options: {
    readonly clock?: () => number;
    readonly onError?: (error: unknown | null) => void;
    /** Told about every stored key the keyring takes in after the first load (the relay's other event loops take them too). */
    readonly onStoredKeys?: (keys: readonly StoredKey[]) => void;
  } = {},
): Promise<RelayKeys> {
  const clock = options.clock ?? Date.now;
  if (store === undefined) return { keyring: createKeyring(config.keys, { clock }), admin: undefined, serverSecret: undefined, stop: () => undefined };
  const serverSecret = await resolveServerSecret(store, config.server.keySecret);
  const keySecret = keySecretOf(serverSecret);
  const keyring = createKeyring(config.keys, { keySecret, clock });
  const applyStoredKeys = (keys: readonly StoredKey[]) => {
    keyring.applyStoredKeys(keys);
    if (keys.length > 0) options.onStoredKeys?.(keys);
  };
  const sync = await startKeySync(store, { applyStoredKeys }, { pollMs: config.server.keyRefreshMs, onError: options.onError });
  const admin = createKeyAdmin({
    store,
    keySecret,
    configKeys: config.keys,
    isModel: (name) => config.models.has(name),
    clock,
    changed: sync.refresh,
  });
  return { keyring, admin, serverSecret, stop: sync.stop };
}
