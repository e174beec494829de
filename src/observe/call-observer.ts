import type { JournalCompletion, JournalStart } from "../shared/journal-records.ts";

/**
 * Told once about every model call the relay handles, when it ends: settled after it was
 * forwarded, or refused before (bad key, bad input, budget, store unavailable). Both metrics
 * and the call log are driven from here. `start` and `end` are the journal's own records
 * (no copy is made); an observer must not keep or change them, must not throw, and must be cheap.
 */
export interface CallObserver {
  /** `reserved`: what the call held against its budgets until it settled (absent or 0 when none applied or it was refused). */
  ended(start: Readonly<JournalStart>, end: Readonly<JournalCompletion>, reserved?: number): void;
}

/** Several observers as one (in order). */
export function observers(list: readonly CallObserver[]): CallObserver | undefined {
  if (list.length === 0) return undefined;
  if (list.length === 1) return list[0];
  return {
    ended(start, end, reserved) {
      for (const observer of list) observer.ended(start, end, reserved);
    },
  };
}
