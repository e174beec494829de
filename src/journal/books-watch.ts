import type { BooksCheck } from "../budgets/books-check.ts";
import type { BooksReader } from "./journal-store.ts";

/** The books' invariant, checked in the background while the relay serves (/metrics reads the last check). */
export interface BooksWatch {
  /** The last check that completed (undefined before the first). */
  readonly last: BooksCheck | undefined;
  stop(): void;
}

/** A check may use at most this share of the time between checks: the next waits at least this many times as long as it took. */
const DUTY = 50;

/**
 * Checks the books every `intervalMs` (the first after one interval), never more often than
 * one check per 50 times its own duration, so a large journal costs at most 2% of the store's
 * time. A failed check (the store down) is told to `onError` and tried again an interval later.
 */
export function watchBooks(store: BooksReader, intervalMs: number, onError: (error: unknown) => void): BooksWatch {
  let last: BooksCheck | undefined;
  let stopped = false;
  let timer: ReturnType<typeof setTimeout> | undefined;
  const schedule = (ms: number): void => {
    if (stopped) return;
    timer = setTimeout(() => {
      store.checkBooks().then(
        (check) => {
          last = check;
          schedule(Math.max(intervalMs, check.seconds * 1000 * DUTY));
        },
        (error: unknown) => {
          if (!stopped) onError(error);
          schedule(intervalMs);
        },
      );
    }, ms);
  };
  schedule(intervalMs);
  return {
    get last() {
      return last;
    },
    stop() {
      stopped = true;
      clearTimeout(timer);
    },
  };
}
