import { createBudgetAdmin, type BudgetAdmin } from "../budgets/budget-admin.ts";
import { auditBudgetChange } from "../budgets/budget-audit.ts";
import type { BudgetCatalog } from "../budgets/budget-catalog.ts";
import { createOverrideAdmin, type OverrideAdmin } from "../budgets/budget-override-admin.ts";
import { createTeamAdmin, type TeamAdmin } from "../budgets/team-admin.ts";
import type { Config } from "../config/config-schema.ts";
import type { Store } from "../storage/store.ts";

/** The admin operations on who may spend what: budgets, their overrides, teams. */
export interface SpendAdmins {
  readonly budgets: BudgetAdmin;
  readonly overrides: OverrideAdmin;
  readonly teams: TeamAdmin;
}

/** What the spend admins read from the running relay. */
export interface SpendAdminDeps {
  /** The config in force (budgets, teams and the default mode are read from it per change). */
  readonly config: () => Config;
  readonly catalog: BudgetCatalog;
  /** Commits what the journal holds, so a change reads settled spend. */
  readonly flush: () => Promise<void>;
  /** Re-reads stored budgets, overrides and teams into the catalog: a change is in force before its answer. */
  readonly refresh: () => Promise<void>;
}

/** Budgets, overrides and teams changed at run time, each change audited with who made it. */
export function createSpendAdmins(store: Store, deps: SpendAdminDeps): SpendAdmins {
  return {
    budgets: createBudgetAdmin({
      store,
      configBudgets: () => deps.config().budgets,
      defaultMode: () => deps.config().budget.mode,
      sync: deps.flush,
      applied: deps.refresh,
      onBudgetChange: auditBudgetChange(store),
    }),
    overrides: createOverrideAdmin({
      store,
      configBudgets: () => deps.config().budgets,
      applied: deps.refresh,
      audit: async (action, target, before, after, actor) => void (await store.recordAudit({ actor, action, target, before, after })),
    }),
    teams: createTeamAdmin({
      store,
      inForce: () => deps.catalog.teams(),
      configTeams: () => deps.config().teams,
      applied: deps.refresh,
      audit: async (action, before, after, actor) => void (await store.recordAudit({ actor, action, target: `team:${(after ?? before)!.id}`, before, after })),
    }),
  };
}
