/** Counts calls that have started but not yet ended, so shutdown can let them finish. */
export interface InFlightCalls {
  begin(): void;
  end(): void;
  readonly count: number;
  /** Resolves when no call is in flight, or after `graceMs`, whichever comes first. */
  drained(graceMs: number): Promise<void>;
}

/** A counter with a drain wait. */
export function createInFlightCalls(): InFlightCalls {
  let count = 0;
  const waiters: Array<() => void> = [];
  return {
    begin: () => void count++,
    end() {
      count--;
      if (count === 0) for (const wake of waiters.splice(0)) wake();
    },
    get count() {
      return count;
    },
    drained(graceMs) {
      if (count === 0) return Promise.resolve();
      return new Promise((resolve) => {
        const timer = setTimeout(resolve, graceMs);
        waiters.push(() => {
          clearTimeout(timer);
          resolve();
        });
      });
    },
  };
}
