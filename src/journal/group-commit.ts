import { createHistogram, observe, SECONDS_BUCKETS, type Histogram } from "../shared/histogram.ts";

/** Bounds of the batch-size histogram (items per write). */
export const GROUP_SIZE_BUCKETS: readonly number[] = [1, 2, 4, 8, 16, 32, 64, 128, 256, 512, 1024];

/** What {@link createGroupCommit} does with a batch. */
export interface GroupCommitOptions<T, R> {
  /** Writes one batch (items in the order they were added). At most one write is in flight. */
  write(batch: T[]): Promise<R>;
  /** The batch is written (with what `write` resolved to): tell its waiters. */
  written(batch: T[], result: R): void;
  /** Writing the batch failed (it is not retried): tell its waiters. */
  failed(batch: T[], error: unknown): void;
  /** Most items in one write (default: every item waiting). */
  maxBatch?: number;
  /**
   * When the first item after a quiet spell is written (default queueMicrotask: after the
   * current task, so items added in the same task share its write). setImmediate gathers
   * every item added in the same turn of the event loop.
   */
  schedule?: (run: () => void) => void;
}

/** Items waiting to be written together. */
export interface GroupCommit<T> {
  /** Queues `item` for the next write. */
  add(item: T): void;
  /** Resolves once nothing is waiting and no write is in flight. */
  idle(): Promise<void>;
  /** Seconds each write took (start to settled), for /metrics. */
  readonly writeSeconds: Histogram;
  /** Items per write, for /metrics. */
  readonly groupSizes: Histogram;
  /** Whether the last write failed. */
  readonly failing: boolean;
  /** Nothing waits, nothing is scheduled, no write is in flight. */
  readonly quiet: boolean;
}

/**
 * Group commit: one write in flight at a time; items added meanwhile wait and go into the next
 * write together, so each waits only for the write holding it. The first item after a quiet
 * spell is written when `schedule` runs it (by default after a microtask, so items added in the
 * same task share its write); after a write, what waits is written at once. No allocation per item beyond the caller's.
 */
export function createGroupCommit<T, R>(options: GroupCommitOptions<T, R>): GroupCommit<T> {
  const { write, written, failed } = options;
  const maxBatch = options.maxBatch ?? Infinity;
  const schedule = options.schedule ?? queueMicrotask;
  let queue: T[] = [];
  let writing = false;
  let scheduled = false;
  const idlers: Array<() => void> = [];
  const writeSeconds = createHistogram(SECONDS_BUCKETS);
  const groupSizes = createHistogram(GROUP_SIZE_BUCKETS);
  let failing = false;

  const run = (): void => {
    scheduled = false;
    if (writing) return;
    if (queue.length === 0) {
      if (idlers.length > 0) for (const idle of idlers.splice(0)) idle();
      return;
    }
    let batch = queue;
    if (batch.length <= maxBatch) queue = [];
    else batch = queue.splice(0, maxBatch);
    writing = true;
    const began = performance.now();
    observe(groupSizes, batch.length);
    let pending: Promise<R>;
    try {
      pending = write(batch);
    } catch (error) {
      pending = Promise.reject(error);
    }
    pending.then(
      (result) => {
        failing = false;
        written(batch, result);
      },
      (error: unknown) => {
        failing = true;
        failed(batch, error);
      },
    ).finally(() => {
      observe(writeSeconds, (performance.now() - began) / 1000);
      writing = false;
      run();
    });
  };

  return {
    add(item) {
      queue.push(item);
      if (scheduled || writing) return;
      scheduled = true;
      schedule(run);
    },
    idle() {
      return writing || scheduled || queue.length > 0 ? new Promise<void>((resolve) => idlers.push(resolve)) : Promise.resolve();
    },
    writeSeconds,
    groupSizes,
    get failing() {
      return failing;
    },
    get quiet() {
      return !writing && !scheduled && queue.length === 0;
    },
  };
}
