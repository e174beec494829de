import type { Admission, BudgetCharge } from "../budgets/budget-charge.ts";
import type { JournalCompletion, JournalRefusal, JournalStart } from "../shared/journal-records.ts";
import type { Ledger } from "./ledger.ts";
import type { AdmitAlternative, AdmitItem, BatchAdmissionStore, Durability, FinishItem, JournalReader, StoreLifecycle, StoreMaintenance, QuarantinedRecord, QuarantineStore } from "./journal-store.ts";
import { StoreUnavailableError } from "../shared/relay-error.ts";
import { CommitUnknownError } from "../shared/store-write-errors.ts";
import { encodeLogRecord } from "./admission-log/admission-log-record.ts";
import { createGroupCommit } from "./group-commit.ts";
import { createLogApplier } from "./log-applier.ts";
import { configuredUsage } from "../budgets/budget-usage.ts";
import { ledgerStats } from "./ledger-stats.ts";
import { createQuarantine, writeIsolating } from "./record-isolation.ts";
import { safeFinish } from "./record-safe-form.ts";
import { retryUntil } from "./retry-until.ts";
import { createDurableWatch } from "./durable-watch.ts";

/** Options of {@link createSqlLedger}. */
export interface SqlLedgerOptions {
  /** Most admissions in one commit (default 200). */
  maxAdmitBatch?: number;
  /**
   * An admission commit that has not answered after this long is given up (ms, default 5000):
   * its calls are refused (503, not sent) and settled as unsent, as when its reply is lost.
   */
  admitTimeoutMs?: number;
  /** Completions wait at most this long before being written (ms, default 20). */
  finishDelayMs?: number;
  /** Completions are written as soon as this many are queued (default 256). */
  finishBatch?: number;
  /** Wait before retrying completions after a failed write (ms, default 1000). */
  finishRetryMs?: number;
  /** How long closing keeps retrying what is queued while the store does not answer (ms, default 5000). */
  closeRetryMs?: number;
  /** Clock (epoch ms). */
  now?: () => number;
  /** Told about failed background writes (completions are kept and retried) and lost commit replies. */
  onError?: (error: unknown) => void;
  /** Told about every record the database refused and the quarantine kept (record-isolation.ts). */
  onQuarantine?: (record: QuarantinedRecord) => void;
}

/** What the SQL ledger uses of the store: batched admissions and completions, the quarantine, startup recovery, budget reads (for /metrics), ping and close. */
export type SqlLedgerStore = BatchAdmissionStore & QuarantineStore & Pick<StoreMaintenance, "recover"> & Pick<JournalReader, "budgetUsage"> & StoreLifecycle & { readonly durability: Durability };

/** The PostgreSQL ledger, plus startup recovery; `store` is the store it was given. */
export interface SqlLedger<S extends SqlLedgerStore = SqlLedgerStore> extends Ledger {
  readonly store: S;
  /** Marks entries a previous process left unfinished as interrupted; returns how many. */
  recover(now?: number): Promise<number>;
}

/** An admission waiting for its commit; `answered` once its caller was refused without it (the commit took too long). */
interface Pending {
  item: AdmitItem;
  resolve: (admission: Admission) => void;
  reject: (error: unknown) => void;
  answered?: true;
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
 * them, and closing ends with a durable commit. A record the database refuses is written in its
 * safe form and quarantined, never holding up the others (record-isolation.ts).
 *
 * An admission whose commit's reply is lost (the connection dropped after COMMIT was sent, or
 * the server went down) or does not come within admitTimeoutMs may have been committed; its
 * call is refused (503, not sent) either way. It joins the completions as an `unsent` item,
 * which, once the store answers, finishes its entry as refused at cost 0 and releases what it
 * reserved if the commit landed, or records it so if it did not (FinishItem).
 *
 * With "fsync" durability, completions committed without waiting for the disk are kept until a
 * durable commit after them (the next admission's, or a readiness ping) returns; when a write
 * fails as it would if the server went down, they are written again (durable-watch.ts), so a
 * server crash does not leave their entries started while the relay runs.
 */
export function createSqlLedger<S extends SqlLedgerStore>(store: S, options: SqlLedgerOptions = {}): SqlLedger<S> {
  const now = options.now ?? Date.now;
  const onError = options.onError ?? ignore;
  const admitTimeoutMs = options.admitTimeoutMs ?? 5000;
  let closing: Promise<void> | undefined;
  /** The last readiness check failed. */
  let pingFailed = false;
  const quarantine = createQuarantine(store, options.onQuarantine ?? ignore, now);
  /** Completions committed without waiting for the disk, until a durable commit after them ("fsync" only: "process" makes no such promise). */
  const watch = store.durability === "fsync" ? createDurableWatch<FinishItem>() : undefined;
  /** A write failed as it would if the server went down: what it may have lost is written again. */
  const mayHaveLost = (): void => {
    if (watch) for (const item of watch.takeBack()) finishes.add(item);
  };
  /** A readiness ping: a durable commit, which makes every completion committed before it durable. */
  const ping = async (): Promise<boolean> => {
    const durable = watch?.durable();
    const ok = await store.ping();
    if (ok) durable?.();
    else mayHaveLost();
    return ok;
  };

  const finishes = createLogApplier<FinishItem>({
    async apply(batch) {
      let dropped: FinishItem[];
      try {
        dropped = await writeIsolating(batch, {
          write: (items) => store.finishBatch(items, "soon"),
          safeForm: safeFinish,
          quarantine: (item, error, written) => quarantine.keep({ finish: item }, encodeLogRecord({ finish: item }).trimEnd(), error, written),
          ping: () => store.ping(),
        });
      } catch (error) {
        mayHaveLost();
        throw error;
      }
      watch?.written(dropped.length === 0 ? batch : batch.filter((item) => !dropped.includes(item)));
      // Quiet on admissions, many completions: a ping makes them durable rather than holding them here.
      if (watch !== undefined && watch.size >= 4096) void ping();
    },
    delayMs: options.finishDelayMs ?? 20,
    soonAt: options.finishBatch ?? 256,
    retryMs: options.finishRetryMs ?? 1000,
    onError,
  });

  /** The caller is refused (not sent); what its admission did is settled once the store answers. */
  const unsent = (pending: Pending): void => {
    finishes.add({ kind: "unsent", start: pending.item.start, finishedAt: now(), fence: true });
    pending.reject(new StoreUnavailableError());
  };

  const admits = createGroupCommit<Pending, Admission[]>({
    maxBatch: options.maxAdmitBatch ?? 200,
    write: (batch) => {
      const durable = watch?.durable();
      const giveUp = setTimeout(() => {
        onError(new CommitUnknownError(`no answer within ${admitTimeoutMs} ms`));
        for (const pending of batch) {
          pending.answered = true;
          unsent(pending);
        }
      }, admitTimeoutMs);
      return store.admitBatch(batch.map((p) => p.item)).then(
        (admissions) => {
          clearTimeout(giveUp);
          durable?.();
          return admissions;
        },
        (error: unknown) => {
          clearTimeout(giveUp);
          mayHaveLost();
          throw error;
        },
      );
    },
    written: (batch, admissions) => batch.forEach((p, i) => p.answered || p.resolve(admissions[i] as Admission)),
    failed: (batch, error) => {
      const unknown = error instanceof CommitUnknownError;
      if (unknown) onError(error);
      for (const pending of batch) {
        if (pending.answered) continue;
        if (unknown) unsent(pending);
        else pending.reject(new StoreUnavailableError());
      }
    },
  });

  return {
    store,
    admit: (start: JournalStart, charges: readonly BudgetCharge[], cheaper?: AdmitAlternative): Promise<Admission> => {
      if (closing) return Promise.reject(new StoreUnavailableError("Renio is shutting down; the request was not sent"));
      const item: AdmitItem = cheaper === undefined ? { start, charges } : { start, charges, cheaper };
      return new Promise<Admission>((resolve, reject) => admits.add({ item, resolve, reject }));
    },
    complete: (id: string, completion: JournalCompletion, charges: readonly BudgetCharge[], actualCost: number): void => {
      finishes.add({ kind: "complete", id, completion, charges, actualCost, finishedAt: now() });
    },
    refuse: (refusal: JournalRefusal): void => {
      finishes.add({ kind: "refuse", refusal, finishedAt: now() });
    },
    flush: () => finishes.flush(),
    async ready() {
      pingFailed = !(await ping());
      return !pingFailed;
    },
    stats: () => ledgerStats(admits, finishes, pingFailed, quarantine.counts, (item) => item.kind === "unsent"),
    budgetUsage: async (budgets, at) => configuredUsage(budgets, await store.budgetUsage(), at).map((row) => row.usage),
    recover: (at?: number) => store.recover(at ?? now()),
    close: () => {
      closing ??= (async () => {
        await admits.idle();
        try {
          // What is queued (unsent admissions too) is written before the store closes; a store
          // not answering is retried for closeRetryMs, then what is left is named on the way out.
          const flushed = await retryUntil(() => finishes.flush(), options.closeRetryMs ?? 5000);
          if (!flushed) onError(new Error(`closing with ${finishes.waiting.length} journal record(s) unwritten (${unsettledIds(finishes.waiting)}); the next start marks their entries interrupted`));
          // A last durable commit (a ping's write) carries the completions committed without waiting for the disk.
          else await ping();
        } finally {
          finishes.stop();
          await store.close();
        }
      })();
      return closing;
    },
  };
}

/** The entries of unwritten records, for the closing line (at most 20 named). */
function unsettledIds(items: readonly FinishItem[]): string {
  const ids = items.map((item) => (item.kind === "complete" ? item.id : item.kind === "refuse" ? item.refusal.start.id : item.start.id));
  return ids.length <= 20 ? ids.join(", ") : `${ids.slice(0, 20).join(", ")}, …`;
}
