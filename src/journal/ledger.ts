import type { Admission, BudgetCharge } from "../budgets/budget-charge.ts";
import type { BudgetUsage } from "../budgets/budget-usage.ts";
import type { BudgetConfig } from "../config/config-schema.ts";
import type { Histogram } from "../shared/histogram.ts";
import type { JournalCompletion, JournalRefusal, JournalStart } from "../shared/journal-records.ts";
import type { QuarantineCounts } from "./record-isolation.ts";
import type { AdmitAlternative } from "./journal-store.ts";

/**
 * The relay's view of storage: the write-ahead journal and the budget ledger.
 * Implemented over the Store with group commit (see sql-ledger.ts and log-ledger.ts).
 */

/** The journal and budget ledger as the relay uses it (implemented by sql-ledger.ts and log-ledger.ts). */
export interface Ledger {
  /**
   * Durably records `start` and atomically reserves every charge, in one commit shared with
   * concurrent calls. If any strict charge does not fit, nothing is reserved and the entry is
   * recorded as refused. With `cheaper`, a refusal by a budget that names a cheaper model
   * gives way to that alternative, decided in the same commit (admitted: `downgraded`, and the
   * entry is the alternative's start). Rejects with StoreUnavailableError when the commit fails.
   */
  admit(start: JournalStart, charges: readonly BudgetCharge[], cheaper?: AdmitAlternative): Promise<Admission>;
  /** Completes an admitted entry and settles its charges to `actualCost` (batched; never throws). */
  complete(id: string, completion: JournalCompletion, charges: readonly BudgetCharge[], actualCost: number): void;
  /** Records a call refused before admission (bad key, bad input). Batched; never throws. */
  refuse(refusal: JournalRefusal): void;
  /** Writes every batched completion now. */
  flush(): Promise<void>;
  /** Whether the store answers. */
  ready(): Promise<boolean>;
  /** Flushes and closes. */
  close(): Promise<void>;
  /** The store's figures for /metrics, as of now (no store round trip, no allocation). */
  stats(): LedgerStats;
  /**
   * Each configured budget in its current period (config order) with what is spent and
   * reserved: from memory where the ledger decides admissions, else read from the store.
   */
  budgetUsage(budgets: readonly BudgetConfig[], now: Date): Promise<BudgetUsage[]>;
}

/** What /metrics shows of the store behind a ledger. */
export interface LedgerStats {
  /** Seconds per admission write (log write or database commit); null without a store. */
  readonly admissionWriteSeconds: Histogram | null;
  /** Admissions per write (group size); null without a store. */
  readonly admissionGroupSizes: Histogram | null;
  /** Records (completions, refusals; on SQLite also admissions) waiting to be written to the database. */
  readonly backlog: number;
  /** ms the oldest of them has waited. */
  readonly applyLagMs: number;
  /** The last database apply (completions; on SQLite everything) failed, or the last readiness check did. */
  readonly failing: boolean;
  /** Records the database refused that this relay quarantined since it started, by kind. */
  readonly quarantined: QuarantineCounts;
  /** Admissions whose outcome was unknown (never sent) waiting to be settled in the database. */
  readonly unsettled: number;
}
