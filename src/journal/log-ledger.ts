import type { Admission, BudgetCharge } from "../budget/budget-charge.ts";
import type { JournalCompletion, JournalRefusal, JournalStart } from "../shared/journal-records.ts";
import type { Ledger } from "./ledger.ts";
import { createBudgetBook } from "../budget/budget-book.ts";
import { reservationDeltas, settlementDeltas, type BudgetDeltas } from "../budget/budget-deltas.ts";
import type { JournalLog } from "./journal-log.ts";
import type { BudgetUsage } from "../budget/budget-usage.ts";
import type { LogApplyStore, LogRecord, StoreLifecycle } from "../storage/store.ts";
import { StoreUnavailableError } from "../shared/relay-error.ts";

/** Options of {@link createLogLedger}. */
export interface LogLedgerOptions {
  /** This relay process (recorded on its entries; recovery leaves a live instance's entries alone). */
  instanceId: string | null;
  /** Records wait at most this long before being applied to the database (ms, default 50). */
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
}

/** A line waiting for the next log write, and who waits for it to be durable. */
interface ToWrite {
  line: string;
  /** The admission it records (absent for a readiness probe: an empty line, skipped on replay). */
  record?: Extract<LogRecord, { admit: unknown }>;
  waiter: { resolve: () => void; reject: (error: unknown) => void };
}

/** A record waiting to be applied to the database. */
interface ToApply {
  line: string;
  record: LogRecord;
  /** The log segment holding it; null for completions and refusals (not write-ahead). */
  segment: number | null;
}

const lineOf = (record: LogRecord): string => `${JSON.stringify(record)}\n`;

/**
 * UTF-8 encoding into one buffer reused for every log write (one write is in flight at a
 * time, so the previous write is done with it): no allocation per write.
 */
function reusedBufferEncoder(): (text: string) => Uint8Array {
  const encoder = new TextEncoder();
  let buffer = new Uint8Array(64 * 1024);
  return (text) => {
    // UTF-8 needs at most 3 bytes per UTF-16 code unit.
    if (buffer.byteLength < text.length * 3) buffer = new Uint8Array(Math.max(buffer.byteLength * 2, text.length * 3));
    return buffer.subarray(0, encoder.encodeInto(text, buffer).written);
  };
}

/**
 * The ledger of a relay that owns its SQLite file. An admission is decided in memory (the
 * budget book, by the same rule as the SQL path) and appended to the admission log; `admit`
 * resolves once that write is durable. Calls arriving while a write is in flight share the
 * next one (group commit), and a write is one O_DSYNC write of a few hundred bytes per call,
 * not a database transaction. Records are applied to the database in large batches shortly
 * after (a call's admission and completion usually in one row write), on the store's own
 * thread; after a crash, the next start replays the log first. Completions and refusals are
 * not write-ahead: they ride along with the next admission's write (for replay), or are
 * written on their own at most finishWriteMs (10 ms) after they are queued when no admission
 * comes, and are applied like the rest. With "process" durability (nothing to wait for) each admission is
 * written at once instead.
 */
export function createLogLedger(store: LogApplyStore & StoreLifecycle, log: JournalLog, budgets: readonly BudgetUsage[], options: LogLedgerOptions): Ledger {
  const applyDelayMs = options.applyDelayMs ?? 50;
  const applyBatch = options.applyBatch ?? 1024;
  const applyRetryMs = options.applyRetryMs ?? 1000;
  const maxBacklog = options.maxBacklog ?? 50_000;
  const now = options.now ?? Date.now;
  const onError = options.onError ?? (() => undefined);
  const book = createBudgetBook(budgets);
  const encode = reusedBufferEncoder();

  let toWrite: ToWrite[] = [];
  /** Completion and refusal lines, written with the next admission (they do not wait). */
  let riders = "";
  let writing = false;
  let writeScheduled = false;
  let writesIdle: Array<() => void> = [];
  let toApply: ToApply[] = [];
  let applying: Promise<void> | undefined;
  let applyTimer: ReturnType<typeof setTimeout> | undefined;
  let applyFailed = false;
  /** Calls waiting for the database to catch up (the backlog was full). */
  let waitingForRoom: Array<() => void> = [];
  /** The database failed a readiness check: calls are refused until it takes writes again. */
  let storeDown = false;
  let closing: Promise<void> | undefined;
  /** Writes the riders if no admission has carried them by then (a call answered is journaled finished within finishWriteMs). */
  let ridersTimer: ReturnType<typeof setTimeout> | undefined;
  const finishWriteMs = options.finishWriteMs ?? 10;

  const write = (item: ToWrite): void => {
    toWrite.push(item);
    if (writeScheduled || writing) return;
    writeScheduled = true;
    // A microtask lets calls made in the same tick share the write.
    queueMicrotask(runWrite);
  };

  const runWrite = (): void => {
    writeScheduled = false;
    if (writing) return;
    if (toWrite.length === 0) {
      for (const idle of writesIdle.splice(0)) idle();
      return;
    }
    const batch = toWrite;
    toWrite = [];
    let text = riders;
    riders = "";
    for (const item of batch) text += item.line;
    writing = true;
    log.write(encode(text)).then(
      (segment) => {
        for (const { line, record, waiter } of batch) {
          if (record) toApply.push({ line, record, segment });
          waiter.resolve();
        }
        scheduleApply();
      },
      (error: unknown) => {
        onError(error);
        for (const { record, waiter } of batch) {
          if (record?.admit.admitted) book.unreserve(record.admit.charges);
          waiter.reject(new StoreUnavailableError());
        }
      },
    ).finally(() => {
      writing = false;
      runWrite();
    });
  };

  /**
   * "process" durability: there is nothing to wait for, so a line (with the riders) is written
   * at once, without a group. Returns false when the write failed.
   */
  const writeNow = (appendNow: (bytes: Uint8Array) => number, line: string, record?: ToWrite["record"]): boolean => {
    try {
      const segment = appendNow(encode(riders + line));
      riders = "";
      if (record) toApply.push({ line, record, segment });
      scheduleApply();
      return true;
    } catch (error) {
      onError(error);
      return false;
    }
  };

  /** Queues a completion or refusal: applied with the next batch, logged with the next write. */
  const finish = (record: LogRecord): void => {
    const line = lineOf(record);
    riders += line;
    toApply.push({ line, record, segment: null });
    scheduleApply();
    ridersTimer ??= setTimeout(writeRiders, finishWriteMs);
  };

  /** Writes the waiting completion and refusal lines on their own (an ordinary write, durable like an admission's). */
  const writeRiders = (): void => {
    ridersTimer = undefined;
    if (riders === "" || closing) return;
    if (log.appendNow) writeNow(log.appendNow, "");
    else write({ line: "", waiter: { resolve: () => undefined, reject: () => undefined } });
  };

  const scheduleApply = (): void => {
    if (applyTimer !== undefined || applying !== undefined || toApply.length === 0) return;
    applyTimer = setTimeout(() => {
      applyTimer = undefined;
      applyOnce().catch((error: unknown) => {
        onError(error);
        applyTimer = setTimeout(() => {
          applyTimer = undefined;
          scheduleApply();
        }, applyRetryMs);
      });
    }, toApply.length >= applyBatch ? 0 : applyDelayMs);
  };

  /** Applies the oldest waiting records (up to applyBatch) in one transaction. */
  const applyOnce = async (): Promise<void> => {
    while (applying) await applying.catch(() => undefined);
    if (toApply.length === 0) return;
    const taken = toApply.slice(0, applyBatch);
    const deltas: BudgetDeltas = new Map();
    let lines = "";
    for (const { line, record } of taken) {
      lines += line;
      if ("admit" in record) {
        if (record.admit.admitted) reservationDeltas(deltas, record.admit.charges);
      } else if (record.finish.kind === "complete") {
        settlementDeltas(deltas, record.finish.charges, record.finish.actualCost);
      }
    }
    applying = store.applyLog(lines).then(
      (rows) => {
        applyFailed = false;
        storeDown = false;
        toApply = toApply.slice(taken.length);
        book.applied(rows, deltas);
        if (toApply.length <= maxBacklog) for (const resume of waitingForRoom.splice(0)) resume();
        const oldest = toApply.find((item) => item.segment !== null)?.segment ?? log.segment;
        log.release(Math.min(oldest, log.segment));
      },
      (error: unknown) => {
        applyFailed = true;
        for (const resume of waitingForRoom.splice(0)) resume();
        throw error;
      },
    );
    try {
      await applying;
    } finally {
      applying = undefined;
      scheduleApply();
    }
  };

  const writesDone = (): Promise<void> =>
    writing || writeScheduled || toWrite.length > 0 ? new Promise<void>((resolve) => writesIdle.push(resolve)) : Promise.resolve();

  /** Applies everything recorded so far. */
  const flush = async (): Promise<void> => {
    await writesDone();
    clearTimeout(applyTimer);
    applyTimer = undefined;
    let left = toApply.length;
    while (left > 0 && toApply.length > 0) {
      const before = toApply.length;
      await applyOnce();
      left -= before - toApply.length;
    }
  };

  return {
    async admit(start: JournalStart, charges: readonly BudgetCharge[]): Promise<Admission> {
      // Backpressure: while the database is far behind, calls wait for it (a failing one refuses them).
      while (toApply.length > maxBacklog && !applyFailed && !closing) await new Promise<void>((resume) => waitingForRoom.push(resume));
      if (closing) throw new StoreUnavailableError("Renio is shutting down; the request was not sent");
      if (applyFailed || storeDown) throw new StoreUnavailableError();
      const admission = book.admit(charges);
      const record = { admit: { start, charges, admitted: admission.admitted, decidedAt: now(), instanceId: options.instanceId } };
      if (log.appendNow) {
        if (writeNow(log.appendNow, lineOf(record), record)) return admission;
        if (admission.admitted) book.unreserve(charges);
        throw new StoreUnavailableError();
      }
      return new Promise<Admission>((resolve, reject) => write({ line: lineOf(record), record, waiter: { resolve: () => resolve(admission), reject } }));
    },
    complete(id: string, completion: JournalCompletion, charges: readonly BudgetCharge[], actualCost: number): void {
      book.settle(charges, actualCost);
      finish({ finish: { kind: "complete", id, completion, charges, actualCost, finishedAt: now() } });
    },
    refuse(refusal: JournalRefusal): void {
      finish({ finish: { kind: "refuse", refusal, finishedAt: now() } });
    },
    flush,
    async ready() {
      if (closing) return false;
      // The log must take a write (an empty line, skipped on replay), and the database too.
      const logged = log.appendNow
        ? writeNow(log.appendNow, "\n")
        : await new Promise<boolean>((resolve) => write({ line: "\n", waiter: { resolve: () => resolve(true), reject: () => resolve(false) } }));
      if (applyFailed) await applyOnce().catch(() => undefined);
      storeDown = !(await store.ping());
      return logged && !applyFailed && !storeDown;
    },
    close() {
      closing ??= (async () => {
        let applied = false;
        try {
          await flush();
          applied = toApply.length === 0;
          for (const resume of waitingForRoom.splice(0)) resume();
        } finally {
          clearTimeout(applyTimer);
          clearTimeout(ridersTimer);
          log.close(applied);
          await store.close();
        }
      })();
      return closing;
    },
  };
}
