import type { BatchAdmissionStore, Durability, JournalReader, LogApplyStore, StoreLifecycle, StoreMaintenance, QuarantineStore, BooksReader } from "../journal/journal-store.ts";
import type { BudgetDefinitionStore } from "../budgets/budget-store.ts";
import type { AuditStore } from "../shared/audit.ts";
import type { KeyStore } from "../keys/key-store.ts";
import type { AlertOutbox } from "../alerts/alert-outbox.ts";

/** Counters for tests and benchmarks. */
export interface StoreStats {
  /** Admission transactions committed. */
  admitCommits: number;
  /** Admission batches committed in one statement (admit-statement.ts), every call of them admitted. */
  statementAdmissions: number;
  /** Finish (completion/refusal) transactions committed. */
  finishCommits: number;
}

/**
 * Renio's storage: the union of the ports the concepts declare (journal, budgets, keys, audit,
 * alerts), in one implementation over Kysely; backends differ only in their Dialect and a few
 * SQL fragments. Every write method is one transaction. Each consumer takes only the port it
 * uses; the composition root, the CLI (and the storage thread) hold the whole Store.
 */
export interface Store
  extends BatchAdmissionStore, LogApplyStore, JournalReader, StoreMaintenance, BooksReader, BudgetDefinitionStore, KeyStore, AuditStore, AlertOutbox, QuarantineStore, StoreLifecycle {
  readonly backend: "sqlite" | "postgres";
  readonly durability: Durability;
  readonly stats: StoreStats;
}
