import type { Admission, BudgetCharge } from "../budget/budget-charge.ts";
import type { JournalCompletion, JournalRefusal, JournalStart } from "../shared/journal-records.ts";

/**
 * The relay's view of storage: the write-ahead journal and the budget ledger.
 * Implemented over the Store with group commit (see sql-ledger.ts and log-ledger.ts).
 */

/** The journal and budget ledger as the relay uses it (implemented by sql-ledger.ts and log-ledger.ts). */
export interface Ledger {
  /**
   * Durably records `start` and atomically reserves every charge, in one commit shared with
   * concurrent calls. If any strict charge does not fit, nothing is reserved and the entry is
   * recorded as refused. Rejects with StoreUnavailableError when the commit fails.
   */
  admit(start: JournalStart, charges: readonly BudgetCharge[]): Promise<Admission>;
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
}
