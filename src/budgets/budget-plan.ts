import type { BudgetConfig } from "../config/config-schema.ts";
import type { BudgetCharge } from "./budget-charge.ts";
import { coversKey, endUserBudgetId, tagKey, type ChargeSubject } from "./budget-scope.ts";

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
  /**
   * One charge of `amount` per budget that applies to the call: total, its project, team and
   * key; each of its tags' budgets; and, for a call with an end user, that end user's row of
   * each per-end-user budget of the project (created on first use, in the admission's commit).
   */
  chargesFor(subject: ChargeSubject, amount: number, now: Date): BudgetCharge[];
}

interface Applicable {
  budgetId: string;
  period: PeriodKind;
  limit: number;
  mode: "strict" | "observe";
  stored: boolean;
  /** A per-end-user template: the charge's budget id is the end user's row id. */
  perEndUser: boolean;
  /** The cheaper model a call this budget cannot cover is served by (onExceeded). */
  downgrade: string | undefined;
}

/** A budget the plan charges: a config budget, or (`stored`) one created at run time. */
export type PlannedBudget = BudgetConfig & { stored?: boolean };

/** A limit in force for a bounded window (an override), by budget row id (a template's end user: `template/user`). */
export interface LimitOverride {
  budgetId: string;
  limit: number;
  /** Epoch ms the override ends at, by itself. */
  until: number;
}

const DAY_MS = 86_400_000;

/**
 * Builds the plan from config budgets (`mode` absent → `defaultMode`); `teams` maps a project
 * to its team. The list of budgets that apply to a key is computed on first use and cached;
 * per call only the period string (cached per UTC day), the tag and end-user budgets (one Map
 * lookup each) and the amount vary. An override in force replaces its budget's limit.
 */
export function createBudgetPlan(
  budgets: readonly PlannedBudget[],
  defaultMode: "strict" | "observe",
  teams: ReadonlyMap<string, string> = new Map(),
  overrides: readonly LimitOverride[] = [],
): BudgetPlan {
  const perKey = new Map<string, readonly Applicable[]>();
  const byTag = new Map<string, Applicable[]>();
  const overridden = new Map(overrides.map((o) => [o.budgetId, o]));
  let day = Number.NaN;
  let periods: Record<PeriodKind, string> = { total: "total", month: "", day: "" };
  const applicableOf = (b: PlannedBudget): Applicable => ({
    budgetId: b.id,
    period: b.period,
    limit: b.limit,
    mode: b.mode ?? defaultMode,
    stored: b.stored === true,
    perEndUser: typeof b.scope === "object" && "endUser" in b.scope,
    downgrade: typeof b.onExceeded === "object" ? b.onExceeded.model : undefined,
  });
  for (const b of budgets) {
    if (typeof b.scope !== "object" || !("tag" in b.scope)) continue;
    const key = tagKey(b.scope.tag.name, b.scope.tag.value);
    byTag.set(key, [...(byTag.get(key) ?? []), applicableOf(b)]);
  }

  function applicable(keyId: string, project: string): readonly Applicable[] {
    const cacheKey = `${keyId}\u0000${project}`;
    let list = perKey.get(cacheKey);
    if (list === undefined) {
      const subject = { keyId, project, team: teams.get(project) ?? null };
      list = budgets
        .filter(({ scope }) => coversKey(scope, subject) || (typeof scope === "object" && "endUser" in scope && scope.endUser.project === project))
        .map(applicableOf);
      perKey.set(cacheKey, list);
    }
    return list;
  }

  const chargeOf = (b: Applicable, budgetId: string, amount: number, now: Date): BudgetCharge => {
    const charge: BudgetCharge = { budgetId, period: periods[b.period], limit: b.limit, mode: b.mode, amount };
    if (b.stored) charge.stored = true;
    if (b.downgrade !== undefined) charge.downgrade = b.downgrade;
    if (overridden.size > 0) {
      const override = overridden.get(budgetId);
      if (override !== undefined && now.getTime() < override.until) {
        charge.limit = override.limit;
        charge.overridden = true;
      }
    }
    return charge;
  };

  return {
    chargesFor(subject, amount, now) {
      const list = applicable(subject.keyId, subject.project);
      if (list.length === 0 && byTag.size === 0) return [];
      const today = Math.floor(now.getTime() / DAY_MS);
      if (today !== day) {
        day = today;
        periods = { total: "total", month: periodOf("month", now), day: periodOf("day", now) };
      }
      const charges: BudgetCharge[] = [];
      for (const b of list) {
        if (!b.perEndUser) charges.push(chargeOf(b, b.budgetId, amount, now));
        else if (subject.endUser !== null) charges.push(chargeOf(b, endUserBudgetId(b.budgetId, subject.endUser), amount, now));
      }
      if (byTag.size > 0) for (const [name, value] of subject.tags) for (const b of byTag.get(tagKey(name, value)) ?? []) charges.push(chargeOf(b, b.budgetId, amount, now));
      return charges;
    },
  };
}
