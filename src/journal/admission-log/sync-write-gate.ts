/** Options of {@link createSyncWriteGate}. */
export interface SyncWriteGateOptions {
  /** Writes on the calling thread taking longer than this on average (ms) close the gate. */
  readonly slowMs: number;
  /** How long the gate stays closed (ms); writes on the calling thread are then tried again. */
  readonly coolOffMs: number;
  /** Clock (ms, monotonic). */
  readonly now?: () => number;
}

/**
 * Whether the admission log is written on the calling thread. An O_DSYNC write of a few
 * hundred bytes on a healthy disk takes a fraction of a millisecond: blocking the event loop
 * for it costs less than handing it to a pool thread and back (measured on a 2-core VM: a
 * write costs ~60 µs of kernel CPU either way; the async path adds ~20 µs on the event loop
 * and ~20 µs of pool-thread wake-ups per write, and a hop each way). On a slow disk it would
 * stall every call the thread serves, so once the writes' moving average (the last ~8 writes)
 * is over `slowMs`, writes go to a pool thread for `coolOffMs`, after which the calling thread
 * is tried again. A lone slow write (a healthy disk has a few of several ms) moves the average
 * by an eighth of its time: one of 50 ms closes the gate, one of 5 ms does not.
 */
export interface SyncWriteGate {
  /** Whether the next write may block the calling thread. */
  open(): boolean;
  /** Tells how long a write on the calling thread took (ms). */
  took(ms: number): void;
}

/** Weight of the newest write in the moving average. */
const NEWEST_WEIGHT = 1 / 8;

export function createSyncWriteGate(options: SyncWriteGateOptions): SyncWriteGate {
  const now = options.now ?? (() => performance.now());
  let closedUntil = -Infinity;
  let averageMs = 0;
  return {
    open: () => now() >= closedUntil,
    took(ms) {
      averageMs += (ms - averageMs) * NEWEST_WEIGHT;
      if (averageMs <= options.slowMs) return;
      closedUntil = now() + options.coolOffMs;
      averageMs = 0;
    },
  };
}
