import type { GroupCommit } from "./group-commit.ts";
import type { LedgerStats } from "./ledger.ts";
import type { LogApplier } from "./log-applier.ts";
import type { QuarantineCounts } from "./record-isolation.ts";

/**
 * A ledger's /metrics figures from its pieces: the admission writes, the database apply (whose
 * waiting items `unsent` tells apart) and the quarantine; `down`: its last readiness check failed.
 */
export function ledgerStats<T>(writes: GroupCommit<unknown>, applier: LogApplier<T>, down: boolean, quarantined: QuarantineCounts, unsent: (item: T) => boolean): LedgerStats {
  let unsettled = 0;
  for (const item of applier.waiting) if (unsent(item)) unsettled++;
  return {
    admissionWriteSeconds: writes.writeSeconds,
    admissionGroupSizes: writes.groupSizes,
    backlog: applier.waiting.length,
    applyLagMs: applier.lagMs(),
    failing: down || applier.failing,
    quarantined,
    unsettled,
  };
}
