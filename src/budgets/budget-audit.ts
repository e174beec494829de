import type { StoredBudget } from "./budget-definition.ts";
import type { AuditStore } from "../shared/audit.ts";

/** Records each budget change in the admin audit: `budget.create`, `budget.update` or `budget.delete`, before and after. */
export function auditBudgetChange(store: Pick<AuditStore, "recordAudit">): (before: StoredBudget | null, after: StoredBudget | null, actor: string) => Promise<void> {
  return async (before, after, actor) => {
    const action = before === null ? "budget.create" : after === null ? "budget.delete" : "budget.update";
    const target = `budget:${(after ?? before)!.id}`;
    await store.recordAudit({ actor, action, target, before, after });
  };
}
