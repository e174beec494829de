/** How the riders' own write is scheduled. */
export interface RiderTimers {
  set(run: () => void, ms: number): unknown;
  clear(timer: unknown): void;
}

const RUNTIME_TIMERS: RiderTimers = {
  set: (run, ms) => setTimeout(run, ms),
  clear: (timer) => clearTimeout(timer as ReturnType<typeof setTimeout>),
};

/** Completion and refusal lines waiting to ride the next log write. */
export interface Riders {
  /** The lines waiting, in order ("" when none). */
  readonly text: string;
  /** Queues a line; the first one since the last write arms the deadline. */
  add(line: string): void;
  /** The waiting lines went into a write: none wait now, and their deadline is off. */
  taken(): void;
  /** Turns the deadline off for good (the log is closing). */
  stop(): void;
}

/**
 * The riders of a log: written with the next admission, or on their own (`writeAlone`) once the
 * oldest of them has waited `maxWaitMs` (a call answered is journaled finished within it). The
 * deadline is armed by the first line after a write and cancelled by the write that carries the
 * lines: a deadline left from lines already written would fire early and write later ones on
 * their own, one more durable write (a stream lasting about `maxWaitMs` met it between its
 * completion and the next call's admission).
 */
export function createRiders(maxWaitMs: number, writeAlone: () => void, timers: RiderTimers = RUNTIME_TIMERS): Riders {
  let text = "";
  let deadline: unknown;
  const cancel = (): void => {
    if (deadline === undefined) return;
    timers.clear(deadline);
    deadline = undefined;
  };
  const due = (): void => {
    deadline = undefined;
    if (text !== "") writeAlone();
  };
  return {
    get text() {
      return text;
    },
    add(line) {
      text += line;
      deadline ??= timers.set(due, maxWaitMs);
    },
    taken() {
      text = "";
      cancel();
    },
    stop: cancel,
  };
}
