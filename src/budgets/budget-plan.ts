import type { BudgetConfig } from "../config/config-schema.ts";
import type { BudgetCharge } from "./budget-charge.ts";

/** A budget's period kind. */
export type PeriodKind = BudgetConfig["period"];

/** The period `now` falls in, in UTC: "total", "2026-12" (month) or "2026-12-02" (day). */
export function periodOf(period: PeriodKind, now: Date): string {
  if (period === "total") return "total";
  const month = `${now.getUTCFullYear()}-${String(now.getUTCMonth() + 1).padStart(2, "0")}`;
  return period === "month" ? month : `${month}-${String(now.getUTCDate()).padStart(2, "0")}`;
}

/** Epoch ms at which a period key of {@link periodOf} ends (the next one starts, UTC); null for "total", which never ends. */
export function periodEnd(period: string): number | null {
  const match = /^(\d{4})-(\d{2})(?:-(\d{2}))?$/.exec(period);
  if (match === null) return null;
  const [year, month] = [Number(match[1]), Number(match[2]) - 1];
  return match[3] === undefined ? Date.UTC(year, month + 1, 1) : Date.UTC(year, month, Number(match[3]) + 1);
}

/** Which budgets a call is charged against. */
export interface BudgetPlan {
  /** One charge of `amount` per budget that applies to the key (total, its project, the key itself). */
  chargesFor(keyId: string, project: string, amount: number, now: Date): BudgetCharge[];
}

interface Applicable {
  budgetId: string;
  period: PeriodKind;
  limit: number;
  mode: "strict" | "observe";
  stored: boolean;
}

/** A budget the plan charges: a config budget, or (`stored`) one created at run time. */
export type PlannedBudget = BudgetConfig & { stored?: boolean };

const DAY_MS = 86_400_000;

/**
 * Builds the plan from config budgets (`mode` absent → `defaultMode`). The list of budgets
 * that apply to a key is computed on first use and cached; per call only the period string
 * (cached per UTC day) and the amount vary.
 */
export function createBudgetPlan(budgets: readonly PlannedBudget[], defaultMode: "strict" | "observe"): BudgetPlan {
  const perKey = new Map<string, readonly Applicable[]>();
  let day = Number.NaN;
  let periods: Record<PeriodKind, string> = { total: "total", month: "", day: "" };

  function applicable(keyId: string, project: string): readonly Applicable[] {
    const cacheKey = `${keyId}\u0000${project}`;
    let list = perKey.get(cacheKey);
    if (list === undefined) {
      list = budgets
        .filter(({ scope }) => scope === "total" || ("project" in scope ? scope.project === project : scope.key === keyId))
        .map((b) => ({ budgetId: b.id, period: b.period, limit: b.limit, mode: b.mode ?? defaultMode, stored: b.stored === true }));
      perKey.set(cacheKey, list);
    }
    return list;
  }

  return {
    chargesFor(keyId, project, amount, now) {
      const list = applicable(keyId, project);
      if (list.length === 0) return [];
      const today = Math.floor(now.getTime() / DAY_MS);
      if (today !== day) {
        day = today;
        periods = { total: "total", month: periodOf("month", now), day: periodOf("day", now) };
      }
      return list.map((b): BudgetCharge => {
        const charge: BudgetCharge = { budgetId: b.budgetId, period: periods[b.period], limit: b.limit, mode: b.mode, amount };
        if (b.stored) charge.stored = true;
        return charge;
      });
    },
  };
}
