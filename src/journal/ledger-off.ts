import type { Ledger, LedgerStats } from "./ledger.ts";

const OFF_STATS: LedgerStats = { admissionWriteSeconds: null, admissionGroupSizes: null, backlog: 0, applyLagMs: 0, failing: false, quarantined: new Map(), unsettled: 0 };

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
    stats: () => OFF_STATS,
    budgetUsage: () => Promise.resolve([]),
  };
}
