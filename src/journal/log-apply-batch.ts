import { reservationDeltas, settlementDeltas, type BudgetDeltas } from "../budgets/budget-deltas.ts";
import { budgetKey } from "../budgets/budget-key.ts";
import type { BudgetUsage } from "../budgets/budget-usage.ts";
import { encodeLogRecord, type LogRecord } from "./admission-log/admission-log-record.ts";
import type { LogApplyStore, StoreLifecycle } from "./journal-store.ts";
import type { Quarantine } from "./record-isolation.ts";
import { writeIsolating } from "./record-isolation.ts";
import { safeLogRecord } from "./record-safe-form.ts";

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

/**
 * What applying `batch` moves in the budget rows. An unsent record moves nothing here: while the
 * relay runs, the admission it settles never reached the database (its log write failed and the
 * book gave its reservation back); only a replay finds one there, and a replay has no book.
 */
export function batchDeltas(batch: readonly ToApply[]): BudgetDeltas {
  const deltas: BudgetDeltas = new Map();
  for (const { record } of batch) {
    if ("admit" in record) {
      if (record.admit.admitted) reservationDeltas(deltas, record.admit.charges);
    } else if (record.finish.kind === "complete") {
      settlementDeltas(deltas, record.finish.charges, record.finish.actualCost);
    }
  }
  return deltas;
}

/**
 * Applies `batch` to the database (lines in log order) so that a record the database refuses is
 * written in its safe form and quarantined instead of holding up the rest (record-isolation.ts).
 * Returns the budget rows as stored after it and what it moved in them (the records in the
 * journal in no form left out).
 */
export async function applyIsolated(
  store: LogApplyStore & Pick<StoreLifecycle, "ping">,
  batch: readonly ToApply[],
  quarantine: Quarantine,
): Promise<{ rows: BudgetUsage[]; deltas: BudgetDeltas }> {
  const rows = new Map<string, BudgetUsage>();
  const dropped = await writeIsolating(batch, {
    async write(items) {
      let lines = "";
      for (const { line } of items) lines += line;
      for (const row of await store.applyLog(lines)) rows.set(budgetKey(row.budgetId, row.period), row);
    },
    safeForm(item) {
      const record = safeLogRecord(item.record);
      return { line: encodeLogRecord(record), record, segment: item.segment };
    },
    quarantine: (item, error, written) => quarantine.keep(item.record, item.line.trimEnd(), error, written),
    ping: () => store.ping(),
  });
  return { rows: [...rows.values()], deltas: batchDeltas(dropped.length === 0 ? batch : batch.filter((item) => !dropped.includes(item))) };
}
