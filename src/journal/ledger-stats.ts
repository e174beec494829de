import type { GroupCommit } from "./group-commit.ts";
import type { LedgerStats } from "./ledger.ts";
import type { LogApplier } from "./log-applier.ts";

/** A ledger's /metrics figures from its two pieces: the admission writes and the database apply; `down`: its last readiness check failed. */
export function ledgerStats(writes: GroupCommit<unknown>, applier: LogApplier<unknown>, down: boolean): LedgerStats {
  return {
    admissionWriteSeconds: writes.writeSeconds,
    admissionGroupSizes: writes.groupSizes,
    backlog: applier.waiting.length,
    applyLagMs: applier.lagMs(),
    failing: down || applier.failing,
  };
}
