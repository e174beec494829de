import type { Admission, BudgetCharge } from "../budgets/budget-charge.ts";
import type { JournalCompletion, JournalRefusal, JournalStart } from "../shared/journal-records.ts";
import type { Ledger } from "./ledger.ts";
import { createBudgetBook } from "../budgets/budget-book.ts";
import type { JournalLog } from "./admission-log/journal-log.ts";
import type { BudgetUsage } from "../budgets/budget-usage.ts";
import type { BudgetTerms } from "../budgets/budget-definition.ts";
import { downgradeApplies } from "../budgets/budget-downgrade.ts";
import type { AdmitAlternative, LogApplyStore, StoreLifecycle, QuarantinedRecord, QuarantineStore } from "./journal-store.ts";
import { encodeLogRecord, type DecidedAdmission, type LogRecord } from "./admission-log/admission-log-record.ts";
import { createGroupCommit } from "./group-commit.ts";
import { createLogApplier } from "./log-applier.ts";
import { admissionsAwaitingCompletion, applyIsolated, type ToApply } from "./log-apply-batch.ts";
import { createQuarantine } from "./record-isolation.ts";
import { reusedBufferEncoder } from "./admission-log/reused-encoder.ts";
import { StoreUnavailableError } from "../shared/relay-error.ts";
import { observe } from "../shared/histogram.ts";
import { ledgerStats } from "./ledger-stats.ts";
import { createSyncWriteGate } from "./admission-log/sync-write-gate.ts";
import { createRiders, type RiderTimers } from "./log-riders.ts";

/** Options of {@link createLogLedger}. */
export interface LogLedgerOptions {
  /** This relay process (recorded on its entries; recovery leaves a live instance's entries alone). */
  instanceId: string | null;
  /**
   * Records wait at most this long before being applied to the database (ms, default 200; at
   * load, `applyBatch` records waiting are applied at once). An apply has a fixed cost (a
   * transaction, its commit and WAL pages, a wake-up of the store thread: ~350 µs of CPU with
   * fsync durability), so at low load longer batches cost less per call.
   */
  applyDelayMs?: number;
  /** Most records applied in one transaction (default 1024); this many waiting are applied at once. */
  applyBatch?: number;
  /** Wait before retrying after a failed apply (ms, default 1000). */
  applyRetryMs?: number;
  /** Records waiting to be applied beyond which new calls wait for the database to catch up (default 50,000). */
  maxBacklog?: number;
  /** Clock (epoch ms). */
  now?: () => number;
  /** Completions and refusals are written to the log at most this long after they are queued, even when no admission comes (ms, default 10). */
  finishWriteMs?: number;
  /** Told about failed log writes and applies. */
  onError?: (error: unknown) => void;
  /** Told about every record the database refused and the quarantine kept (record-isolation.ts). */
  onQuarantine?: (record: QuarantinedRecord) => void;
  /** Terms in force of budgets changed at run time (stored budgets), read when each call is decided. */
  budgetTerms?: (budgetId: string) => BudgetTerms | undefined;
  /** Schedules and cancels the riders' own write (default the runtime's setTimeout and clearTimeout; tests drive time). */
  timers?: RiderTimers;
  /** A log write on the event loop's thread slower than this (ms, default 2) sends writes to a pool thread for {@link syncWriteCoolOffMs}. */
  syncWriteSlowMs?: number;
  /** How long writes stay on a pool thread after a slow one (ms, default 5000). */
  syncWriteCoolOffMs?: number;
}

/** A line waiting for the next log write, and who waits for it to be durable. */
interface ToWrite {
  line: string;
  /** The admission it records (absent for a readiness probe or a write of the riders alone). */
  record?: { admit: DecidedAdmission };
  resolve: () => void;
  reject: (error: unknown) => void;
}

const ignore = (): void => undefined;

/**
 * The ledger of a relay that owns its SQLite file. An admission is decided in memory (the
 * budget book, by the same rule as the SQL path) and appended to the admission log; `admit`
 * resolves once that write is durable. The calls admitted in one turn of the event loop share
 * one write (group-commit.ts), and a write is one O_DSYNC write of a few hundred bytes per
 * call, not a database transaction. Records are applied to the database in large batches
 * shortly after (log-applier.ts; a call's admission and completion usually in one row write:
 * an admitted call still open when a batch is cut waits for the next one, once), on the
 * store's own thread; after a crash, the next start replays the log first.
 * Completions and refusals are not write-ahead: they ride along with the next admission's
 * write (for replay), or are written on their own at most finishWriteMs (10 ms) after they are
 * queued when no admission comes, and are applied like the rest. With "process" durability
 * (nothing to wait for) each admission is written at once instead.
 * With "fsync", writes are made on the event loop's thread, which blocks for the O_DSYNC
 * write: on this kind of disk that costs less CPU and latency than handing it to a pool thread
 * and back, and the calls arriving meanwhile form the next group. A write slower than
 * syncWriteSlowMs sends writes to a pool thread for a cool-off (sync-write-gate.ts), so a
 * slow disk does not stall every call. A lone call (no other admitted call open, nothing
 * being written) is written at once, without waiting for the turn to end.
 */
export function createLogLedger(store: LogApplyStore & QuarantineStore & StoreLifecycle, log: JournalLog, budgets: readonly BudgetUsage[], options: LogLedgerOptions): Ledger {
  const applyBatch = options.applyBatch ?? 1024;
  const finishWriteMs = options.finishWriteMs ?? 10;
  const now = options.now ?? Date.now;
  const onError = options.onError ?? ignore;
  const book = createBudgetBook(budgets, options.budgetTerms);
  const quarantine = createQuarantine(store, options.onQuarantine ?? ignore, now);
  const encode = reusedBufferEncoder();
  /** Completion and refusal lines, written with the next admission (they do not wait), or alone after finishWriteMs. */
  const riders = createRiders(finishWriteMs, () => writeRiders(), options.timers);
  /** The database failed a readiness check: calls are refused until it takes writes again. */
  let storeDown = false;
  /** Admitted calls not yet completed (with "fsync", a lone call is written at once). */
  let open = 0;
  let closing: Promise<void> | undefined;
  const gate = createSyncWriteGate({ slowMs: options.syncWriteSlowMs ?? 2, coolOffMs: options.syncWriteCoolOffMs ?? 5000 });

  /**
   * A durable write on this thread (the thread blocks for the O_DSYNC write: cheaper than the
   * hop to a pool thread and back, see sync-write-gate.ts), timed for the gate. Throws when it fails.
   */
  const appendHere = (bytes: Uint8Array): number => {
    const began = performance.now();
    try {
      return log.appendSync(bytes);
    } finally {
      gate.took(performance.now() - began);
    }
  };

  const applier = createLogApplier<ToApply>({
    delayMs: options.applyDelayMs ?? 200,
    soonAt: applyBatch,
    maxBatch: applyBatch,
    retryMs: options.applyRetryMs ?? 1000,
    maxBacklog: options.maxBacklog ?? 50_000,
    onError,
    async apply(batch) {
      const { rows, deltas } = await applyIsolated(store, batch, quarantine);
      storeDown = false;
      book.applied(rows, deltas);
    },
    holdBack: admissionsAwaitingCompletion,
    applied(waiting) {
      // Segments before the oldest holding a record still waiting are done with.
      const oldest = waiting.find((item) => item.segment !== null)?.segment ?? log.segment;
      log.release(Math.min(oldest, log.segment));
    },
  });

  const writes = createGroupCommit<ToWrite, number>({
    // A group is written once the event loop has run every callback ready in this turn, so all
    // the calls admitted in one turn share one write.
    schedule: setImmediate,
    write(batch) {
      let text = riders.text;
      riders.taken();
      for (const item of batch) text += item.line;
      const bytes = encode(text);
      if (!gate.open()) return log.write(bytes);
      try {
        return Promise.resolve(appendHere(bytes));
      } catch (error) {
        return Promise.reject(error);
      }
    },
    written(batch, segment) {
      for (const { line, record, resolve } of batch) {
        if (record) applier.add({ line, record, segment });
        resolve();
      }
    },
    failed(batch, error) {
      onError(error);
      for (const { record, reject } of batch) {
        if (record?.admit.admitted) unsent(record.admit);
        reject(new StoreUnavailableError());
      }
    },
  });

  /**
   * "process" durability: there is nothing to wait for, so a line (with the riders) is written
   * at once, without a group. Returns false when the write failed.
   */
  const writeNow = (appendNow: (bytes: Uint8Array) => number, line: string, record?: ToWrite["record"]): boolean => {
    const began = performance.now();
    try {
      const segment = appendNow(encode(riders.text + line));
      riders.taken();
      observe(writes.writeSeconds, (performance.now() - began) / 1000);
      observe(writes.groupSizes, 1);
      if (record) applier.add({ line, record, segment });
      return true;
    } catch (error) {
      onError(error);
      return false;
    }
  };

  /** Queues a completion or refusal: applied with the next batch, logged with the next write. */
  const finish = (record: LogRecord): void => {
    const line = encodeLogRecord(record);
    riders.add(line);
    applier.add({ line, record, segment: null });
  };

  /**
   * An admitted call whose log write failed was never sent: its reservation goes back, and an
   * unsent record follows it (in a later segment), so that the admission, if its bytes reached
   * the failed segment after all, is replayed as refused and not sent rather than interrupted.
   */
  const unsent = (admit: DecidedAdmission): void => {
    book.unreserve(admit.charges);
    // No fence: nothing else writes this log or database, so no write of it can still be on its way.
    finish({ finish: { kind: "unsent", start: admit.start, finishedAt: now(), fence: false } });
  };

  /** Writes the waiting completion and refusal lines on their own (an ordinary write, durable like an admission's). */
  const writeRiders = (): void => {
    if (closing) return;
    if (log.appendNow) writeNow(log.appendNow, "");
    else writes.add({ line: "", resolve: ignore, reject: ignore });
  };

  /** Applies everything recorded so far. */
  const flush = async (): Promise<void> => {
    await writes.idle();
    await applier.flush();
  };

  return {
    async admit(start: JournalStart, charges: readonly BudgetCharge[], cheaper?: AdmitAlternative): Promise<Admission> {
      // Backpressure: while the database is far behind, calls wait for it (a failing one refuses them).
      while (applier.full && !applier.failing && !closing) await applier.untilRoom();
      if (closing) throw new StoreUnavailableError("Renio is shutting down; the request was not sent");
      if (applier.failing || storeDown) throw new StoreUnavailableError();
      let { admission, charges: decided } = book.admit(charges);
      let entry = start;
      if (cheaper !== undefined && downgradeApplies(admission, charges)) {
        const second = book.admit(cheaper.charges);
        if (second.admission.admitted) [admission, decided, entry] = [{ ...second.admission, downgraded: true }, second.charges, cheaper.start];
      }
      const record: { admit: DecidedAdmission } = { admit: { start: entry, charges: decided, admitted: admission.admitted, decidedAt: now(), instanceId: options.instanceId } };
      if (!admission.admitted && admission.paused) record.admit.paused = true;
      const line = encodeLogRecord(record);
      // A lone call (nothing else open or being written) is written at once, without waiting for the turn to end.
      const append = log.appendNow ?? (open === 0 && writes.quiet && gate.open() ? appendHere : undefined);
      if (append) {
        if (!writeNow(append, line, record)) {
          if (admission.admitted) unsent(record.admit);
          throw new StoreUnavailableError();
        }
        if (admission.admitted) open++;
        return admission;
      }
      return new Promise<Admission>((resolve, reject) =>
        writes.add({
          line,
          record,
          resolve: () => {
            if (admission.admitted) open++;
            resolve(admission);
          },
          reject,
        }),
      );
    },
    complete(id: string, completion: JournalCompletion, charges: readonly BudgetCharge[], actualCost: number): void {
      if (open > 0) open--;
      book.settle(charges, actualCost);
      finish({ finish: { kind: "complete", id, completion, charges, actualCost, finishedAt: now() } });
    },
    refuse(refusal: JournalRefusal): void {
      finish({ finish: { kind: "refuse", refusal, finishedAt: now() } });
    },
    flush,
    stats: () => ledgerStats(writes, applier, storeDown, quarantine.counts, (item) => "finish" in item.record && item.record.finish.kind === "unsent"),
    budgetUsage: (budgets, at) => Promise.resolve(book.usage(budgets, at)),
    async ready() {
      if (closing) return false;
      // The log must take a write (an empty line, skipped on replay), and the database too.
      const logged = log.appendNow
        ? writeNow(log.appendNow, "\n")
        : await new Promise<boolean>((resolve) => writes.add({ line: "\n", resolve: () => resolve(true), reject: () => resolve(false) }));
      if (applier.failing) await applier.applyOnce().catch(ignore);
      storeDown = !(await store.ping());
      return logged && !applier.failing && !storeDown;
    },
    close() {
      closing ??= (async () => {
        let applied = false;
        try {
          await flush();
          applied = applier.waiting.length === 0;
        } finally {
          // The database did not take everything: what the log lacks goes there, for the next start to replay.
          if (!applied && riders.text !== "") writeNow(log.appendSync, "");
          applier.stop();
          riders.stop();
          log.close(applied);
          await store.close();
        }
      })();
      return closing;
    },
  };
}
