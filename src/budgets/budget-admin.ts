import { splitEndUserBudgetId } from "./budget-scope.ts";
import type { BudgetChange, BudgetMode, NewBudget, StoredBudget } from "./budget-definition.ts";
import { fromNanos, toNanos } from "./budget-amounts.ts";
import { budgetKey } from "./budget-key.ts";
import { periodOf } from "./budget-plan.ts";
import type { BudgetUsage } from "./budget-usage.ts";
import type { BudgetConfig } from "../config/config-schema.ts";
import { RelayError } from "../shared/relay-error.ts";
import type { BudgetDefinitionStore } from "./budget-store.ts";
import type { BudgetUsageReader } from "./budget-store.ts";

/** Where a budget is defined: the config file (read-only here) or the store. */
export type BudgetSource = "config" | "store";

/** One budget period row as the admin API and `renio budgets list` show it. */
export interface BudgetListing extends BudgetUsage {
  /** Null for a budget no longer defined (a period row of a deleted budget, or one removed from the config). */
  source: BudgetSource | null;
  scope: BudgetConfig["scope"] | null;
  /** The mode in effect (a config budget without one: the config's `budget.mode`). */
  mode: BudgetMode | null;
  paused: boolean;
}

/** Manages the budgets created at run time; lists them with the config's. */
export interface BudgetAdmin {
  /** Every stored usage row, plus each defined budget's current period when it has no row yet; the current period at the limit in force. */
  list(now?: Date): Promise<BudgetListing[]>;
  /** `actor`: who acts (an admin token's id, or `local:<OS user>`), for the audit. */
  create(budget: NewBudget, actor: string): Promise<StoredBudget>;
  update(id: string, change: BudgetChange, actor: string): Promise<StoredBudget>;
  remove(id: string, actor: string): Promise<StoredBudget>;
}

/** What {@link createBudgetAdmin} works with. */
export interface BudgetAdminDeps {
  readonly store: BudgetDefinitionStore & BudgetUsageReader;
  /** The config's budgets in force (a reload may change them). */
  readonly configBudgets: () => readonly BudgetConfig[];
  /** The config's `budget.mode`. */
  readonly defaultMode: () => BudgetMode;
  /** Brings the store's usage up to date before a read (a relay applies what its log holds). */
  readonly sync?: () => Promise<void>;
  /** Puts a committed change in force in this process before it is answered (a relay re-reads its budgets). */
  readonly applied?: () => Promise<void>;
  /**
   * Told of every committed change, with the budget before and after it (null before a create,
   * null after a delete): where an admin action on budgets is known, e.g. to record it.
   */
  readonly onBudgetChange?: (before: StoredBudget | null, after: StoredBudget | null, actor: string) => void | Promise<void>;
}

/**
 * The one implementation of budget administration, used by `/admin/budgets` and by
 * `renio budgets … --config` (the store directly): ids of config budgets are refused
 * (409 `budget_exists` to create, 409 `budget_read_only` to change or delete), the store
 * answers 404 `budget_not_found` and 409 `budget_exists`.
 */
export function createBudgetAdmin(deps: BudgetAdminDeps): BudgetAdmin {
  const configured = (): ReadonlyMap<string, BudgetConfig> => new Map(deps.configBudgets().map((budget) => [budget.id, budget]));
  const changed = async (before: StoredBudget | null, after: StoredBudget | null, actor: string): Promise<void> => {
    await deps.applied?.();
    await deps.onBudgetChange?.(before, after, actor);
  };
  const notInConfig = (id: string): void => {
    if (configured().has(id)) throw new RelayError(409, "budget_read_only", `Budget \`${id}\` is defined in the config file; change it there`);
  };
  return {
    async list(now = new Date()) {
      await deps.sync?.();
      const [usage, stored] = await Promise.all([deps.store.budgetUsage(), deps.store.listBudgets()]);
      return listing(usage, definedBudgets(deps.configBudgets(), deps.defaultMode(), stored), now);
    },
    async create(budget, actor) {
      if (configured().has(budget.id)) throw new RelayError(409, "budget_exists", `Budget \`${budget.id}\` is defined in the config file; pick another id`);
      const created = await deps.store.createBudget(budget);
      await changed(null, created, actor);
      return created;
    },
    async update(id, change, actor) {
      notInConfig(id);
      const { before, after } = await deps.store.updateBudget(id, change);
      await changed(before, after, actor);
      return after;
    },
    async remove(id, actor) {
      notInConfig(id);
      const before = await deps.store.deleteBudget(id);
      await changed(before, null, actor);
      return before;
    },
  };
}

/** A defined budget with what the listing shows of it. */
interface Defined {
  id: string;
  source: BudgetSource;
  scope: BudgetConfig["scope"];
  period: BudgetConfig["period"];
  limit: number;
  mode: BudgetMode;
  paused: boolean;
}

function definedBudgets(config: readonly BudgetConfig[], defaultMode: BudgetMode, stored: readonly StoredBudget[]): Map<string, Defined> {
  const defined = new Map<string, Defined>();
  for (const b of config) defined.set(b.id, { id: b.id, source: "config", scope: b.scope, period: b.period, limit: b.limit, mode: b.mode ?? defaultMode, paused: false });
  for (const b of stored) if (!defined.has(b.id)) defined.set(b.id, { id: b.id, source: "store", scope: b.scope, period: b.period, limit: b.limit, mode: b.mode, paused: b.paused });
  return defined;
}

function listing(usage: readonly BudgetUsage[], defined: ReadonlyMap<string, Defined>, now: Date): BudgetListing[] {
  const rows: BudgetListing[] = [];
  const current = new Set<string>();
  for (const row of usage) {
    // A per-end-user budget's rows (one per end user, `template/end-user`) are listed apart (GET /admin/spenders/budgets/{id}).
    if (splitEndUserBudgetId(row.budgetId) !== undefined) continue;
    const budget = defined.get(row.budgetId);
    if (budget === undefined) {
      rows.push({ ...row, source: null, scope: null, mode: null, paused: false });
      continue;
    }
    const inForce = row.period === periodOf(budget.period, now);
    if (inForce) current.add(budgetKey(row.budgetId, row.period));
    // The current period at the limit in force (the row holds the limit of its last admission).
    const limit = inForce ? budget.limit : row.limit;
    rows.push({ ...row, limit, remaining: fromNanos(toNanos(limit) - toNanos(row.spent) - toNanos(row.reserved)), source: budget.source, scope: budget.scope, mode: budget.mode, paused: budget.paused });
  }
  for (const budget of defined.values()) {
    const period = periodOf(budget.period, now);
    if (current.has(budgetKey(budget.id, period))) continue;
    rows.push({ budgetId: budget.id, period, limit: budget.limit, spent: 0, reserved: 0, remaining: budget.limit, source: budget.source, scope: budget.scope, mode: budget.mode, paused: budget.paused });
  }
  return rows;
}
