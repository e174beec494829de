import { termsBudgetId } from "./budget-scope.ts";
import type { BudgetConfig } from "../config/config-schema.ts";
import type { BudgetMode, BudgetTerms, StoredBudget } from "./budget-definition.ts";
import { termsOf } from "./budget-definition.ts";
import { createBudgetPlan, type BudgetPlan, type LimitOverride } from "./budget-plan.ts";
import type { TeamConfig } from "../config/attribution-schema.ts";

/** What the store holds besides budgets that the plan reads: overrides in force and teams created at run time. */
export interface StoredExtras {
  overrides: readonly LimitOverride[];
  teams: readonly TeamConfig[];
}

/**
 * The budgets in force in this relay: the config's, then those in the store (as last read).
 * `replace` swaps the stored ones at once: the next call is quoted with the new plan, and
 * admissions decided from then on read the new terms. A stored budget with a config budget's
 * id is ignored (the admin API refuses to create one; the config may gain it later).
 */
export interface BudgetCatalog {
  /** Which budgets a call is charged against, now. */
  plan(): BudgetPlan;
  /** The terms in force of a stored budget; undefined for config budgets and unknown ids. */
  termsOf(budgetId: string): BudgetTerms | undefined;
  /** The stored budgets in force. */
  stored(): readonly StoredBudget[];
  replace(stored: readonly StoredBudget[], extras?: StoredExtras): void;
  /** Swaps the config's budgets and teams (a reload): the stored ones stay. */
  reconfigure(config: readonly BudgetConfig[], defaultMode: BudgetMode, teams?: readonly TeamConfig[]): void;
  /** The team of a project (config teams first, then stored ones); null when it has none. */
  teamOf(project: string): string | null;
  /** Teams in force: the config's, then the store's. */
  teams(): readonly TeamConfig[];
  /** Overrides as last read (some may have ended). */
  overrides(): readonly LimitOverride[];
}

/** A catalog of the config's budgets, with no stored budget until the first `replace`. */
export function createBudgetCatalog(config: readonly BudgetConfig[], defaultMode: BudgetMode, configTeams: readonly TeamConfig[] = []): BudgetCatalog {
  let configured = config;
  let teamsConfigured = configTeams;
  let extras: StoredExtras = { overrides: [], teams: [] };
  let teamList: readonly TeamConfig[] = [];
  let teamOf = new Map<string, string>();
  let mode = defaultMode;
  /** Every stored budget as last read; those with a config budget's id are not in force. */
  let read: readonly StoredBudget[] = [];
  let stored: readonly StoredBudget[] = [];
  let terms = new Map<string, BudgetTerms>();
  let plan = createBudgetPlan(config, defaultMode);
  const rebuild = (): void => {
    const configTeamIds = new Set(teamsConfigured.map((team) => team.id));
    teamList = [...teamsConfigured, ...extras.teams.filter((team) => !configTeamIds.has(team.id))];
    teamOf = new Map();
    for (const team of [...teamList].reverse()) for (const project of team.projects) teamOf.set(project, team.id);
    const configIds = new Set(configured.map((budget) => budget.id));
    stored = read.filter((budget) => !configIds.has(budget.id));
    terms = new Map(stored.map((budget) => [budget.id, termsOf(budget)]));
    plan = createBudgetPlan([...configured, ...stored.map(({ id, scope, period, limit, mode, onExceeded }) => ({ id, scope, period, limit, mode, onExceeded, stored: true }))], mode, teamOf, extras.overrides);
  };
  rebuild();
  return {
    plan: () => plan,
    // An end user's row follows its template's terms (a paused or deleted template covers every end user).
    termsOf: (budgetId) => terms.get(termsBudgetId(budgetId)),
    stored: () => stored,
    replace(next, nextExtras) {
      read = next;
      if (nextExtras !== undefined) extras = nextExtras;
      rebuild();
    },
    reconfigure(nextConfig, nextMode, nextTeams) {
      configured = nextConfig;
      mode = nextMode;
      if (nextTeams !== undefined) teamsConfigured = nextTeams;
      rebuild();
    },
    teamOf: (project) => teamOf.get(project) ?? null,
    teams: () => teamList,
    overrides: () => extras.overrides,
  };
}
