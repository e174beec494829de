import type { KeyStore } from "./key-store.ts";
import type { Keyring } from "./keyring.ts";

/** Keeps a keyring's stored keys current: at once after this relay's own changes, by polling for others'. */
export interface KeySync {
  /** Loads every key written since the last refresh; resolves once the keyring has them. */
  refresh(): Promise<void>;
  /** Stops polling. */
  stop(): void;
}

/** Options of {@link startKeySync}. */
export interface KeySyncOptions {
  /** How often to ask the store whether keys changed (ms). */
  readonly pollMs: number;
  /**
   * Told about the first failed poll of a run of failures (the keyring keeps what it has; the
   * next poll retries), and with null when polls succeed again: one line per outage, not one per poll.
   */
  readonly onError?: (error: unknown | null) => void;
}

/**
 * Loads every stored key into `keyring`, then polls the store's keys version every `pollMs`
 * (one indexed read of one row when nothing changed) and applies the keys written since.
 * Refreshes run one at a time, so versions apply in order.
 */
export async function startKeySync(store: Pick<KeyStore, "keysChangedSince">, keyring: Pick<Keyring, "applyStoredKeys">, options: KeySyncOptions): Promise<KeySync> {
  let version = 0;
  let running: Promise<void> = Promise.resolve();
  const load = async () => {
    const changes = await store.keysChangedSince(version);
    keyring.applyStoredKeys(changes.keys);
    version = Math.max(version, changes.version);
  };
  const refresh = (): Promise<void> => {
    const next = running.then(load);
    running = next.catch(() => undefined);
    return next;
  };
  await refresh();
  let stopped = false;
  let failing = false;
  let timer: ReturnType<typeof setTimeout> | undefined;
  const poll = () => {
    timer = setTimeout(() => {
      refresh()
        .then(
          () => {
            if (failing) options.onError?.(null);
            failing = false;
          },
          (error: unknown) => {
            // A poll cut short by stop() (the store closing at shutdown) is no outage.
            if (!failing && !stopped) options.onError?.(error);
            failing = true;
          },
        )
        .finally(() => {
          if (!stopped) poll();
        });
    }, options.pollMs);
  };
  poll();
  return {
    refresh,
    stop: () => {
      stopped = true;
      clearTimeout(timer);
    },
  };
}
