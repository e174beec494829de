import type { Admission, BudgetCharge } from "../budget/budget-charge.ts";
import type { JournalCompletion, JournalRefusal, JournalStart } from "../shared/journal-records.ts";
import type { Ledger } from "./ledger.ts";
import type { AdmitItem, BatchAdmissionStore, FinishItem, JournalReader, StoreLifecycle, StoreMaintenance } from "../storage/store.ts";
import { StoreUnavailableError } from "../shared/relay-error.ts";
import { createGroupCommit } from "./group-commit.ts";
import { createLogApplier } from "./log-applier.ts";
import { configuredUsage } from "../budget/budget-usage.ts";
import { ledgerStats } from "./ledger-stats.ts";

/** Options of {@link createSqlLedger}. */
export interface SqlLedgerOptions {
  /** Most admissions in one commit (default 200). */
  maxAdmitBatch?: number;
  /** Completions wait at most this long before being written (ms, default 20). */
  finishDelayMs?: number;
  /** Completions are written as soon as this many are queued (default 256). */
  finishBatch?: number;
  /** Wait before retrying completions after a failed write (ms, default 1000). */
  finishRetryMs?: number;
  /** Clock (epoch ms). */
  now?: () => number;
  /** Told about failed background writes (completions are kept and retried). */
  onError?: (error: unknown) => void;
}

/** What the SQL ledger uses of the store: batched admissions and completions, startup recovery, budget reads (for /metrics), ping and close. */
export type SqlLedgerStore = BatchAdmissionStore & Pick<StoreMaintenance, "recover"> & Pick<JournalReader, "budgetUsage"> & StoreLifecycle;

/** The PostgreSQL ledger, plus startup recovery; `store` is the store it was given. */
export interface SqlLedger<S extends SqlLedgerStore = SqlLedgerStore> extends Ledger {
  readonly store: S;
  /** Marks entries a previous process left unfinished as interrupted; returns how many. */
  recover(now?: number): Promise<number>;
}

/** An admission waiting for its commit. */
interface Pending {
  item: AdmitItem;
  resolve: (admission: Admission) => void;
  reject: (error: unknown) => void;
}

const ignore = (): void => undefined;

/**
 * The PostgreSQL ledger: every admission is decided and committed inside the database (budget
 * rows locked in a fixed order), so several relays sharing one PostgreSQL share its budgets.
 * `renio serve` uses it on PostgreSQL only (a relay owning an SQLite file uses log-ledger.ts);
 * tests also run it over SQLite. Admissions are group-committed: at most one admission commit
 * is in flight, calls arriving meanwhile form the next batch (up to maxAdmitBatch), and each
 * call waits only for the commit holding its entry. Completions and refusals are not
 * write-ahead: they are written in batches (after finishDelayMs, or once finishBatch wait),
 * retried after a failure, and written at once by {@link Ledger.flush}. Their commits do not
 * wait for the disk (finishBatch "soon"), so the budget rows they settle are not held locked
 * through a WAL flush that admissions would queue behind; the next admission's commit flushes
 * them, and closing ends with a durable commit.
 */
export function createSqlLedger<S extends SqlLedgerStore>(store: S, options: SqlLedgerOptions = {}): SqlLedger<S> {
  const now = options.now ?? Date.now;
  let closing: Promise<void> | undefined;
  /** The last readiness check failed. */
  let pingFailed = false;

  const admits = createGroupCommit<Pending, Admission[]>({
    maxBatch: options.maxAdmitBatch ?? 200,
    write: (batch) => store.admitBatch(batch.map((p) => p.item)),
    written: (batch, admissions) => batch.forEach((p, i) => p.resolve(admissions[i] as Admission)),
    failed: (batch) => batch.forEach((p) => p.reject(new StoreUnavailableError())),
  });
  const finishes = createLogApplier<FinishItem>({
    apply: (batch) => store.finishBatch(batch, "soon"),
    delayMs: options.finishDelayMs ?? 20,
    soonAt: options.finishBatch ?? 256,
    retryMs: options.finishRetryMs ?? 1000,
    onError: options.onError ?? ignore,
  });

  return {
    store,
    admit: (start: JournalStart, charges: readonly BudgetCharge[]): Promise<Admission> => {
      if (closing) return Promise.reject(new StoreUnavailableError("Renio is shutting down; the request was not sent"));
      return new Promise<Admission>((resolve, reject) => admits.add({ item: { start, charges }, resolve, reject }));
    },
    complete: (id: string, completion: JournalCompletion, charges: readonly BudgetCharge[], actualCost: number): void => {
      finishes.add({ kind: "complete", id, completion, charges, actualCost, finishedAt: now() });
    },
    refuse: (refusal: JournalRefusal): void => {
      finishes.add({ kind: "refuse", refusal, finishedAt: now() });
    },
    flush: () => finishes.flush(),
    async ready() {
      pingFailed = !(await store.ping());
      return !pingFailed;
    },
    stats: () => ledgerStats(admits, finishes, pingFailed),
    budgetUsage: async (budgets, at) => configuredUsage(budgets, await store.budgetUsage(), at).map((row) => row.usage),
    recover: (at?: number) => store.recover(at ?? now()),
    close: () => {
      closing ??= (async () => {
        await admits.idle();
        try {
          await finishes.flush();
          // A last durable commit (a ping's write) carries the completions committed without waiting for the disk.
          await store.ping();
        } finally {
          finishes.stop();
          await store.close();
        }
      })();
      return closing;
    },
  };
}
