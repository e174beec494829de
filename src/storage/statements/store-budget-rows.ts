import type { BudgetDeltas } from "../../budgets/budget-deltas.ts";
import type { HotStatements } from "./hot-statements.ts";
import type { RunQuery } from "./store-transaction.ts";

/** Writes budget deltas: one relative update per touched budget row, in key order (no deadlocks with admissions). */
export async function applyDeltas(run: RunQuery, deltas: BudgetDeltas, now: number, hot: HotStatements): Promise<void> {
  const ordered = [...deltas.entries()].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  for (const [, d] of ordered) {
    await run(hot.addToBudgetRow({ budgetId: d.budgetId, period: d.period, reserved: d.reserved, spent: d.spent, limit: d.limit ?? null, now }));
  }
}
