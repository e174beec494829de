import { reservationDeltas, settlementDeltas, type BudgetDeltas } from "../budget/budget-deltas.ts";
import type { LogRecord } from "../storage/admission-log-record.ts";

/** A record of the admission log waiting to be applied to the database. */
export interface ToApply {
  line: string;
  record: LogRecord;
  /** The log segment holding it; null for completions and refusals (not write-ahead). */
  segment: number | null;
}

/**
 * The admitted calls of a batch whose completion is not in it: they wait for the next batch
 * (once, see LogApplier.holdBack), where a call's completion usually is by then, so its entry
 * is inserted finished in one row write instead of inserted started and updated later.
 */
export function admissionsAwaitingCompletion(batch: readonly ToApply[]): ReadonlySet<ToApply> {
  const completed = new Set<string>();
  for (const { record } of batch) if ("finish" in record && record.finish.kind === "complete") completed.add(record.finish.id);
  const awaiting = new Set<ToApply>();
  for (const item of batch) if ("admit" in item.record && item.record.admit.admitted && !completed.has(item.record.admit.start.id)) awaiting.add(item);
  return awaiting;
}

/** A batch as the store applies it (its lines, in order) and what it moves in the budget rows. */
export function batchToApply(batch: readonly ToApply[]): { lines: string; deltas: BudgetDeltas } {
  const deltas: BudgetDeltas = new Map();
  let lines = "";
  for (const { line, record } of batch) {
    lines += line;
    if ("admit" in record) {
      if (record.admit.admitted) reservationDeltas(deltas, record.admit.charges);
    } else if (record.finish.kind === "complete") {
      settlementDeltas(deltas, record.finish.charges, record.finish.actualCost);
    }
  }
  return { lines, deltas };
}
