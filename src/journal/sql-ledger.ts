import type { Admission, BudgetCharge } from "../budget/budget-charge.ts";
import type { JournalCompletion, JournalRefusal, JournalStart } from "../shared/journal-records.ts";
import type { Ledger } from "./ledger.ts";
import type { AdmitItem, BatchAdmissionStore, FinishItem, StoreLifecycle, StoreMaintenance } from "../storage/store.ts";
import { StoreUnavailableError } from "../shared/relay-error.ts";

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

/** What the SQL ledger uses of the store: batched admissions and completions, startup recovery, ping and close. */
export type SqlLedgerStore = BatchAdmissionStore & Pick<StoreMaintenance, "recover"> & StoreLifecycle;

/** The Ledger over a Store, plus startup recovery; `store` is the store it was given. */
export interface SqlLedger<S extends SqlLedgerStore = SqlLedgerStore> extends Ledger {
  readonly store: S;
  /** Marks entries a previous process left unfinished as interrupted; returns how many. */
  recover(now?: number): Promise<number>;
}

interface Pending {
  item: AdmitItem;
  resolve: (admission: Admission) => void;
  reject: (error: unknown) => void;
}

/**
 * Group commit: at most one admission commit is in flight; calls arriving meanwhile form the
 * next batch, and each call waits only for the commit that holds its entry. Completions and
 * refusals are batched (timer or size) and written by {@link Ledger.flush}.
 */
export function createSqlLedger<S extends SqlLedgerStore>(store: S, options: SqlLedgerOptions = {}): SqlLedger<S> {
  const maxAdmitBatch = options.maxAdmitBatch ?? 200;
  const finishDelayMs = options.finishDelayMs ?? 20;
  const finishBatch = options.finishBatch ?? 256;
  const finishRetryMs = options.finishRetryMs ?? 1000;
  const now = options.now ?? Date.now;
  const onError = options.onError ?? (() => undefined);

  let admitQueue: Pending[] = [];
  let admitting = false;
  let admitsDrained: (() => void) | undefined;
  let admitScheduled = false;
  let finishQueue: FinishItem[] = [];
  let finishing: Promise<void> | undefined;
  let finishTimer: ReturnType<typeof setTimeout> | undefined;
  let closing: Promise<void> | undefined;

  const runAdmitBatch = (): void => {
    admitScheduled = false;
    if (admitting || admitQueue.length === 0) return;
    const batch = admitQueue.slice(0, maxAdmitBatch);
    admitQueue = admitQueue.slice(batch.length);
    admitting = true;
    store.admitBatch(batch.map((p) => p.item)).then(
      (admissions) => batch.forEach((p, i) => p.resolve(admissions[i] as Admission)),
      () => batch.forEach((p) => p.reject(new StoreUnavailableError())),
    ).finally(() => {
      admitting = false;
      scheduleAdmit();
      if (!admitting && admitQueue.length === 0) admitsDrained?.();
    });
  };

  // A microtask lets calls made in the same tick join the first batch.
  const scheduleAdmit = (): void => {
    if (admitScheduled || admitting || admitQueue.length === 0) return;
    admitScheduled = true;
    queueMicrotask(runAdmitBatch);
  };

  const writeFinishes = async (): Promise<void> => {
    while (finishing) await finishing;
    if (finishQueue.length === 0) return;
    const batch = finishQueue;
    finishQueue = [];
    finishing = store.finishBatch(batch).catch((error: unknown) => {
      finishQueue = batch.concat(finishQueue);
      throw error;
    }).finally(() => {
      finishing = undefined;
    });
    await finishing;
  };

  const scheduleFinish = (delayMs: number): void => {
    if (finishTimer !== undefined || closing) return;
    finishTimer = setTimeout(() => {
      finishTimer = undefined;
      writeFinishes().catch((error: unknown) => {
        onError(error);
        scheduleFinish(finishRetryMs);
      });
    }, delayMs);
  };

  const enqueueFinish = (item: FinishItem): void => {
    finishQueue.push(item);
    if (finishQueue.length >= finishBatch) {
      clearTimeout(finishTimer);
      finishTimer = undefined;
      scheduleFinish(0);
    } else {
      scheduleFinish(finishDelayMs);
    }
  };

  const flush = async (): Promise<void> => {
    clearTimeout(finishTimer);
    finishTimer = undefined;
    await writeFinishes();
  };

  return {
    store,
    admit: (start: JournalStart, charges: readonly BudgetCharge[]): Promise<Admission> => {
      if (closing) return Promise.reject(new StoreUnavailableError("Renio is shutting down; the request was not sent"));
      return new Promise<Admission>((resolve, reject) => {
        admitQueue.push({ item: { start, charges }, resolve, reject });
        scheduleAdmit();
      });
    },
    complete: (id: string, completion: JournalCompletion, charges: readonly BudgetCharge[], actualCost: number): void => {
      enqueueFinish({ kind: "complete", id, completion, charges, actualCost, finishedAt: now() });
    },
    refuse: (refusal: JournalRefusal): void => {
      enqueueFinish({ kind: "refuse", refusal, finishedAt: now() });
    },
    flush,
    ready: () => store.ping(),
    recover: (at?: number) => store.recover(at ?? now()),
    close: () => {
      closing ??= (async () => {
        if (admitting || admitQueue.length > 0) await new Promise<void>((resolve) => (admitsDrained = resolve));
        try {
          await flush();
        } finally {
          await store.close();
        }
      })();
      return closing;
    },
  };
}
