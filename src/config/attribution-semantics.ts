import type { ConfigProblem } from "./config-error.ts";
import type { Config } from "./config-schema.ts";

/** Checks of teams, the budgets over teams, tags and end users, and budgets' cheaper models. */
export function checkAttribution(config: Config): ConfigProblem[] {
  const problems: ConfigProblem[] = [];
  const teamOf = new Map<string, string>();
  const teamIds = new Set<string>();
  config.teams.forEach((team, index) => {
    if (teamIds.has(team.id)) problems.push({ path: ["teams", index, "id"], message: `duplicate team id "${team.id}"` });
    teamIds.add(team.id);
    team.projects.forEach((project, p) => {
      const other = teamOf.get(project);
      if (other !== undefined) problems.push({ path: ["teams", index, "projects", p], message: `project "${project}" is in team "${other}" already (a project belongs to one team)` });
      teamOf.set(project, team.id);
    });
  });
  const allowed = new Map<string, Set<string>>();
  for (const key of config.keys) for (const [name, values] of key.tags?.allow ?? []) for (const value of values) (allowed.get(name) ?? allowed.set(name, new Set()).get(name)!).add(value);
  config.budgets.forEach((budget, index) => {
    const scope = budget.scope;
    if (typeof scope === "object" && "team" in scope && !teamIds.has(scope.team)) {
      problems.push({ path: ["budgets", index, "scope", "team"], message: `unknown team "${scope.team}"; add it to \`teams\`` });
    }
    if (typeof scope === "object" && "tag" in scope && allowed.get(scope.tag.name)?.has(scope.tag.value) !== true) {
      problems.push({ path: ["budgets", index, "scope", "tag"], message: `no key allows the tag "${scope.tag.name}=${scope.tag.value}" (add it to a key's \`tags.allow\`)` });
    }
    if (typeof scope === "object" && "endUser" in scope && budget.alerts !== undefined) {
      problems.push({ path: ["budgets", index, "alerts"], message: "a per-end-user budget has a row per end user and takes no alerts; watch renio_top_end_user_cost_today or the dashboard's Spenders page" });
    }
    if (typeof budget.onExceeded === "object") {
      const model = budget.onExceeded.model;
      if (!config.models.has(model)) problems.push({ path: ["budgets", index, "onExceeded", "model"], message: `unknown model "${model}"` });
      if ((budget.mode ?? config.budget.mode) === "observe") problems.push({ path: ["budgets", index, "onExceeded"], message: "an observe budget never refuses, so it never serves a cheaper model; remove onExceeded or make it strict" });
    }
  });
  return problems;
}
