import type { Kysely } from "kysely";
import type { HotStatements } from "./hot-statements.ts";
import type { FinishItem } from "../../journal/journal-store.ts";
import { decodeCheckedLogRecord, type DecidedAdmission } from "../../journal/admission-log/admission-log-record.ts";
import { applyDeltas } from "./store-budget-rows.ts";
import { reservationDeltas, settlementDeltas, type BudgetDeltas } from "../../budgets/budget-deltas.ts";
import { createMissingRows, entryValues, finishedValues, servedValues } from "./store-admit.ts";
import { finishInTransaction } from "./store-finish.ts";
import type { Database } from "../store-schema.ts";
import { budgetKey } from "../../budgets/budget-key.ts";
import type { RunQuery } from "./store-transaction.ts";
import type { AlertRules } from "../../alerts/alert-rules.ts";
import { recordThresholds } from "../queries/store-alert-outbox.ts";
import { addToRollup, newRollupDeltas } from "../queries/store-rollup.ts";

type Completion = Extract<FinishItem, { kind: "complete" }>;

/**
 * Applies admission-log lines (JSON records, in log order) in the current transaction and
 * returns the budget rows they touch. An admitted call whose completion is in the same batch
 * is inserted finished, in one row write; other admissions are inserted started (reserving
 * their charges), then the remaining completions and refusals are written as finishBatch
 * writes them. Entries that already exist are left alone and their reservations not taken
 * again, so replaying a batch changes nothing.
 */
export async function applyLogInTransaction(
  trx: Kysely<Database>,
  run: RunQuery,
  text: string,
  hot: HotStatements,
  knownRows: ReadonlySet<string>,
  instanceId: string | null,
  rules: AlertRules,
): Promise<Map<string, { budgetId: string; period: string }>> {
  const admissions: DecidedAdmission[] = [];
  const finishes: FinishItem[] = [];
  for (const line of text.split("\n")) {
    if (line === "") continue;
    const record = decodeCheckedLogRecord(line);
    if ("admit" in record) admissions.push(record.admit);
    else finishes.push(record.finish);
  }
  const completions = new Map<string, Completion>();
  for (const finish of finishes) if (finish.kind === "complete") completions.set(finish.id, finish);

  const touched = new Map<string, { budgetId: string; period: string }>();
  for (const item of [...admissions, ...completions.values()]) {
    for (const c of item.charges) touched.set(budgetKey(c.budgetId, c.period), { budgetId: c.budgetId, period: c.period });
  }
  const merged = new Map<string, Completion>();
  const rows = admissions.map((admission) => {
    const row = { ...entryValues(admission, admission, admission.decidedAt), instance_id: admission.instanceId };
    const completion = admission.admitted ? completions.get(admission.start.id) : undefined;
    if (!completion) return row;
    merged.set(admission.start.id, completion);
    const served = servedValues(completion);
    return { ...row, ...finishedValues(completion), provider: served.provider ?? row.provider, upstream_model: served.upstream_model ?? row.upstream_model, region: served.region ?? row.region };
  });
  if (rows.length > 0) {
    await createMissingRows(trx, admissions.flatMap((a) => a.charges), knownRows, admissions[admissions.length - 1]!.decidedAt);
  }
  const inserted = new Set<string>();
  for (const row of rows) if ((await run(hot.insertEntry(row))).numAffectedRows === 1n) inserted.add(row.id);
  // Entries inserted finished (refused, or with their completion) go to the hourly rollup, with
  // the completions and refusals below: one upsert per hour and group for the whole batch.
  const rollup = newRollupDeltas();
  for (const row of rows) if (inserted.has(row.id)) addToRollup(rollup, row);

  // An admission applied with its completion nets out to the completion's spend.
  const deltas: BudgetDeltas = new Map();
  for (const admission of admissions) {
    if (!admission.admitted || !inserted.has(admission.start.id)) continue;
    reservationDeltas(deltas, admission.charges);
    const completion = merged.get(admission.start.id);
    if (completion) settlementDeltas(deltas, completion.charges, completion.actualCost);
  }
  const now = admissions.at(-1)?.decidedAt ?? Date.now();
  await applyDeltas(run, deltas, now, hot);
  await recordThresholds(trx, run, hot, rules, deltas, now);
  // Completions not written with their entry (logged in an earlier batch, or the entry existed).
  const rest = finishes.filter((f) => f.kind !== "complete" || !merged.has(f.id) || !inserted.has(f.id));
  await finishInTransaction(trx, run, rest, hot, instanceId, rules, rollup);
  return touched;
}
