import type { TeamConfig } from "../config/attribution-schema.ts";
import { RelayError } from "../shared/relay-error.ts";
import type { BudgetDefinitionStore } from "./budget-store.ts";

/** Teams as the admin API manages them: those of the config (read-only) and those created at run time. */
export interface TeamAdmin {
  /** Every team in force, with where it is defined. */
  list(): Array<TeamConfig & { source: "config" | "store" }>;
  create(team: TeamConfig, actor: string): Promise<TeamConfig>;
  remove(id: string, actor: string): Promise<TeamConfig>;
}

/** What {@link createTeamAdmin} works with. */
export interface TeamAdminDeps {
  readonly store: Pick<BudgetDefinitionStore, "createTeam" | "deleteTeam">;
  /** The teams in force (config first), as the relay's catalog holds them. */
  readonly inForce: () => readonly TeamConfig[];
  readonly configTeams: () => readonly TeamConfig[];
  /** Puts a committed change in force in this process before it is answered. */
  readonly applied?: () => Promise<void>;
  /** Records the change (`team.create`, `team.delete`). */
  readonly audit: (action: string, before: TeamConfig | null, after: TeamConfig | null, actor: string) => Promise<void>;
}

/** Team administration: a project belongs to one team at most; config teams are changed in the config. */
export function createTeamAdmin(deps: TeamAdminDeps): TeamAdmin {
  const fromConfig = (id: string) => deps.configTeams().some((team) => team.id === id);
  return {
    list: () => deps.inForce().map((team) => ({ ...team, source: fromConfig(team.id) ? "config" : "store" })),
    async create(team, actor) {
      if (fromConfig(team.id)) throw new RelayError(409, "team_exists", `Team \`${team.id}\` is defined in the config file; pick another id`);
      for (const other of deps.inForce()) {
        const shared = team.projects.find((project) => other.projects.includes(project));
        if (shared !== undefined && other.id !== team.id) throw new RelayError(409, "team_exists", `Project \`${shared}\` is in team \`${other.id}\` already (a project belongs to one team)`);
      }
      const created = await deps.store.createTeam(team);
      await deps.applied?.();
      await deps.audit("team.create", null, created, actor);
      return created;
    },
    async remove(id, actor) {
      if (fromConfig(id)) throw new RelayError(409, "budget_read_only", `Team \`${id}\` is defined in the config file; change it there`);
      const removed = await deps.store.deleteTeam(id);
      await deps.applied?.();
      await deps.audit("team.delete", removed, null, actor);
      return removed;
    },
  };
}
