import { RecordRejectedError } from "../shared/store-write-errors.ts";
import type { QuarantineKind, QuarantinedRecord, QuarantineStore } from "./journal-store.ts";
import type { LogRecord } from "./admission-log/admission-log-record.ts";
import { recordIdentity, storableText } from "./record-safe-form.ts";

/** What {@link writeIsolating} does with a batch and with a record the store refuses. */
export interface IsolatedWrite<T> {
  /** Writes `items` in one transaction; rejects with RecordRejectedError when the store refuses what one of them holds. */
  write(items: readonly T[]): Promise<void>;
  /** The record's safe form (record-safe-form.ts). */
  safeForm(item: T): T;
  /** Keeps the refused record in the quarantine; `written`: its safe form is in the journal instead. */
  quarantine(item: T, error: RecordRejectedError, written: boolean): Promise<void>;
  /** Whether the store takes writes at all. */
  ping(): Promise<boolean>;
}

/**
 * Writes a batch of journal records so that one the store refuses never holds up the others:
 * when the batch is refused for what a record holds (RecordRejectedError) while the store takes
 * writes (a ping), the batch is halved until each refused record stands alone; the rest is
 * written, and each refused record is written in its safe form instead and quarantined. When
 * its safe form is refused too, it is quarantined only. A refusal while the store takes no
 * writes at all is an outage, not a record's fault: it rejects, and the caller retries.
 * Writing a record twice must change nothing (every journal write is idempotent), so a retry
 * after a half-done isolation is safe. Resolves to the records not in the journal in any form.
 * Costs nothing while nothing is refused; a refused record costs about two writes per halving.
 */
export async function writeIsolating<T>(batch: readonly T[], io: IsolatedWrite<T>): Promise<T[]> {
  try {
    await io.write(batch);
    return [];
  } catch (error) {
    if (!(error instanceof RecordRejectedError) || !(await io.ping())) throw error;
    const dropped: T[] = [];
    await isolate(batch, error, io, dropped);
    return dropped;
  }
}

/** `items` were refused together with `error`: halve them, or settle the one record. */
async function isolate<T>(items: readonly T[], error: RecordRejectedError, io: IsolatedWrite<T>, dropped: T[]): Promise<void> {
  if (items.length === 1) {
    const item = items[0] as T;
    const written = await accepted(io, [io.safeForm(item)]);
    await io.quarantine(item, error, written === true);
    if (written !== true) dropped.push(item);
    return;
  }
  const half = Math.ceil(items.length / 2);
  for (const part of [items.slice(0, half), items.slice(half)]) {
    const outcome = await accepted(io, part);
    if (outcome !== true) await isolate(part, outcome, io, dropped);
  }
}

/** Writes `items`: true, or the refusal (any other failure rejects). */
async function accepted<T>(io: IsolatedWrite<T>, items: readonly T[]): Promise<true | RecordRejectedError> {
  try {
    await io.write(items);
    return true;
  } catch (error) {
    if (error instanceof RecordRejectedError) return error;
    throw error;
  }
}

/** Records this relay quarantined since it started, by kind (for /metrics). */
export type QuarantineCounts = ReadonlyMap<QuarantineKind, number>;

/** The quarantine as a ledger uses it: keeps a record, counts it, tells the operator. */
export interface Quarantine {
  keep(record: LogRecord, json: string, error: RecordRejectedError, written: boolean): Promise<void>;
  readonly counts: QuarantineCounts;
}

/** A quarantine over `store`; `notify` hears of every record kept (one log line). */
export function createQuarantine(store: Pick<QuarantineStore, "quarantine">, notify: (record: QuarantinedRecord) => void, now: () => number = Date.now): Quarantine {
  const counts = new Map<QuarantineKind, number>();
  return {
    counts,
    async keep(record, json, error, written) {
      const kept: QuarantinedRecord = { ...recordIdentity(record), record: json, errorCode: storableText(error.code, 64), error: storableText(error.message, 500), written, at: now() };
      await store.quarantine([kept]);
      counts.set(kept.kind, (counts.get(kept.kind) ?? 0) + 1);
      notify(kept);
    },
  };
}
