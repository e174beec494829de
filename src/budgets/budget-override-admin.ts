import type { BudgetConfig } from "../config/config-schema.ts";
import { RelayError } from "../shared/relay-error.ts";
import type { StoredBudget } from "./budget-definition.ts";
import { endUserBudgetId } from "./budget-scope.ts";
import type { BudgetDefinitionStore, BudgetOverride } from "./budget-store.ts";

/** The longest an override may last: it must end by itself. */
export const MAX_OVERRIDE_MS = 366 * 86_400_000;

/** What an override request says: the budget (and, for a per-end-user budget, which end user), the limit and the end. */
export interface OverrideRequest {
  budgetId: string;
  endUser?: string;
  limit: number;
  /** Epoch ms. */
  until: number;
}

/** Raises or lowers budgets for a bounded window; every change is audited. */
export interface OverrideAdmin {
  list(): Promise<BudgetOverride[]>;
  set(request: OverrideRequest, actor: string): Promise<BudgetOverride>;
  end(budgetId: string, endUser: string | undefined, actor: string): Promise<BudgetOverride>;
}

/** What {@link createOverrideAdmin} works with. */
export interface OverrideAdminDeps {
  readonly store: Pick<BudgetDefinitionStore, "listOverrides" | "setOverride" | "endOverride" | "listBudgets">;
  readonly configBudgets: () => readonly BudgetConfig[];
  /** Puts a committed change in force in this process before it is answered. */
  readonly applied?: () => Promise<void>;
  /** Records the change (action `budget.override` or `budget.override.end`). */
  readonly audit: (action: string, target: string, before: BudgetOverride | null, after: BudgetOverride | null, actor: string) => Promise<void>;
  readonly clock?: () => number;
}

/**
 * Overrides of config and stored budgets: `until` must be in the future and at most
 * {@link MAX_OVERRIDE_MS} away; a per-end-user budget is overridden for one end user (its row).
 */
export function createOverrideAdmin(deps: OverrideAdminDeps): OverrideAdmin {
  const clock = deps.clock ?? Date.now;
  const rowId = async (budgetId: string, endUser: string | undefined): Promise<string> => {
    const budget: Pick<StoredBudget, "scope"> | undefined = deps.configBudgets().find((b) => b.id === budgetId) ?? (await deps.store.listBudgets()).find((b) => b.id === budgetId);
    if (budget === undefined) throw new RelayError(404, "budget_not_found", `No budget \`${budgetId}\` in the config or the store`);
    const perEndUser = typeof budget.scope === "object" && "endUser" in budget.scope;
    if (perEndUser && endUser === undefined) throw new RelayError(400, "invalid_request", `Budget \`${budgetId}\` is per end user: name the end user (\`endUser\`, or --end-user)`);
    if (!perEndUser && endUser !== undefined) throw new RelayError(400, "invalid_request", `Budget \`${budgetId}\` is not per end user: leave out \`endUser\``);
    return endUser === undefined ? budgetId : endUserBudgetId(budgetId, endUser);
  };
  return {
    list: () => deps.store.listOverrides(),
    async set(request, actor) {
      const now = clock();
      if (request.until <= now) throw new RelayError(400, "invalid_request", "`until` is in the past: an override needs an end in the future");
      if (request.until - now > MAX_OVERRIDE_MS) throw new RelayError(400, "invalid_request", "`until` is more than 366 days away: change the budget itself for longer");
      const budgetId = await rowId(request.budgetId, request.endUser);
      const override: BudgetOverride = { budgetId, limit: request.limit, until: request.until, actor, createdAt: now };
      const before = await deps.store.setOverride(override);
      await deps.applied?.();
      await deps.audit("budget.override", `budget:${budgetId}`, before, override, actor);
      return override;
    },
    async end(budgetId, endUser, actor) {
      const id = await rowId(budgetId, endUser);
      const before = await deps.store.endOverride(id);
      await deps.applied?.();
      await deps.audit("budget.override.end", `budget:${id}`, before, null, actor);
      return before;
    },
  };
}
