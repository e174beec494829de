import type { BudgetConfig } from "../config/config-schema.ts";

/** Which calls a budget covers (config-schema.ts `budgetScope`). */
export type BudgetScope = BudgetConfig["scope"];

/** Who a call is for, as the budgets see it (callers/call-identity.ts resolves it). */
export interface ChargeSubject {
  keyId: string;
  project: string;
  /** The team of the key's project, if any. */
  team: string | null;
  /** The end user, always within `project`; null when the call names none. */
  endUser: string | null;
  /** Allowed tags as [name, value] pairs. */
  tags: ReadonlyArray<readonly [string, string]>;
}

/** The row id of a per-end-user budget's end user: the template's id, a slash, the end user (ids never hold a slash). */
export function endUserBudgetId(templateId: string, endUser: string): string {
  return `${templateId}/${endUser}`;
}

/** The template id and end user of a per-end-user row id; undefined for any other budget id. */
export function splitEndUserBudgetId(budgetId: string): { templateId: string; endUser: string } | undefined {
  const slash = budgetId.indexOf("/");
  return slash < 0 ? undefined : { templateId: budgetId.slice(0, slash), endUser: budgetId.slice(slash + 1) };
}

/** The id of the budget whose terms a charge's row follows: a per-end-user row's template, else the row's own id. */
export function termsBudgetId(budgetId: string): string {
  return splitEndUserBudgetId(budgetId)?.templateId ?? budgetId;
}

/** The key a tag budget is found by: name and value. */
export function tagKey(name: string, value: string): string {
  return `${name}\u0000${value}`;
}

/** A scope as one column pair of the store, and as `renio budgets` prints it: kind and value. */
export function scopeParts(scope: BudgetScope): { kind: "total" | "project" | "key" | "team" | "tag" | "endUser"; value: string | null } {
  if (scope === "total") return { kind: "total", value: null };
  if ("project" in scope) return { kind: "project", value: scope.project };
  if ("key" in scope) return { kind: "key", value: scope.key };
  if ("team" in scope) return { kind: "team", value: scope.team };
  if ("tag" in scope) return { kind: "tag", value: `${scope.tag.name}=${scope.tag.value}` };
  return { kind: "endUser", value: scope.endUser.project };
}

/** The scope of stored column values (see {@link scopeParts}). */
export function scopeOfParts(kind: string, value: string): BudgetScope {
  switch (kind) {
    case "total":
      return "total";
    case "key":
      return { key: value };
    case "team":
      return { team: value };
    case "tag": {
      const at = value.indexOf("=");
      return { tag: { name: value.slice(0, at), value: value.slice(at + 1) } };
    }
    case "endUser":
      return { endUser: { project: value } };
    default:
      return { project: value };
  }
}

/** A scope in one word: `total`, `project:web`, `team:growth`, `tag:feature=search`, `end-user:mobile`. */
export function scopeLabel(scope: BudgetScope): string {
  const { kind, value } = scopeParts(scope);
  return kind === "total" ? "total" : `${kind === "endUser" ? "end-user" : kind}:${value}`;
}

/** Whether a key-level scope (total, project, key, team) covers calls of `subject`; tag and end-user scopes are matched per call. */
export function coversKey(scope: BudgetScope, subject: Pick<ChargeSubject, "keyId" | "project" | "team">): boolean {
  if (scope === "total") return true;
  if ("project" in scope) return scope.project === subject.project;
  if ("key" in scope) return scope.key === subject.keyId;
  if ("team" in scope) return scope.team === subject.team;
  return false;
}

/** The subject of a call that names no end user or tag, by key and project alone. */
export function keySubject(keyId: string, project: string, team: string | null = null): ChargeSubject {
  return { keyId, project, team, endUser: null, tags: [] };
}
