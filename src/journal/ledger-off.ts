import type { Ledger } from "./ledger.ts";

/**
 * The ledger of `journal.enabled: false`: admits everything and records nothing.
 * Only for measuring what the journal costs; config forbids budgets with it.
 */
export function createLedgerOff(): Ledger {
  return {
    admit: () => Promise.resolve({ admitted: true }),
    complete: () => {},
    refuse: () => {},
    flush: () => Promise.resolve(),
    ready: () => Promise.resolve(true),
    close: () => Promise.resolve(),
  };
}
