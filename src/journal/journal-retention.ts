import type { StoreMaintenance } from "./journal-store.ts";

/** What retention needs of the store. */
type PruningStore = Pick<StoreMaintenance, "pruneJournal">;

const dayMs = 86_400_000;

/** Options of {@link startRetention}. */
export interface RetentionOptions {
  /** Rows deleted per transaction (default 500). */
  batchSize?: number;
  /** Time between pruning runs (ms, default one hour). */
  intervalMs?: number;
  /** Clock (epoch ms). */
  now?: () => number;
  onError?: (error: unknown) => void;
}

/**
 * Deletes finished entries older than `olderThan` in small transactions, yielding between
 * them so no lock is held for long. Returns how many were deleted.
 */
export async function pruneOlderThan(store: PruningStore, olderThan: Date, batchSize = 500, signal?: AbortSignal): Promise<number> {
  let total = 0;
  while (!signal?.aborted) {
    const deleted = await store.pruneJournal(olderThan, batchSize);
    total += deleted;
    if (deleted < batchSize) break;
    await new Promise<void>((resolve) => setTimeout(resolve, 0));
  }
  return total;
}

/**
 * Prunes entries older than `days` now and then every `intervalMs`, until `signal` aborts.
 * Resolves when the loop has stopped.
 */
export async function startRetention(store: PruningStore, days: number, signal: AbortSignal, options: RetentionOptions = {}): Promise<void> {
  const now = options.now ?? Date.now;
  const intervalMs = options.intervalMs ?? 3_600_000;
  while (!signal.aborted) {
    try {
      await pruneOlderThan(store, new Date(now() - days * dayMs), options.batchSize ?? 500, signal);
    } catch (error) {
      options.onError?.(error);
    }
    await new Promise<void>((resolve) => {
      const timer = setTimeout(done, intervalMs);
      function done(): void {
        clearTimeout(timer);
        signal.removeEventListener("abort", done);
        resolve();
      }
      signal.addEventListener("abort", done, { once: true });
    });
  }
}
