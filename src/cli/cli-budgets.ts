import { scopeLabel } from "../budgets/budget-scope.ts";
import type { StoredBudget } from "../budgets/budget-definition.ts";
import type { BudgetConfig } from "../config/config-schema.ts";
import type { BudgetListing } from "../budgets/budget-admin.ts";
import { BudgetRequestError, type BudgetClient } from "./budget-client.ts";
import { parseSubcommand, subcommandOf, UsageError } from "../shared/cli-args.ts";
import { printTable } from "./cli-table.ts";
import { TARGET_OPTIONS, targetFlags, type TargetFlags } from "./cli-target.ts";
import { formatAmount as round } from "../shared/money.ts";
import type { BooksReport } from "../budgets/books-check.ts";

/**
 * The `renio budget(s)` subcommands that work through a running relay or on the store (manage
 * budgets; check the books); the others (status, reconcile, report) read the store: cli-budget.ts.
 */
export const BUDGET_ADMIN_SUBCOMMANDS = ["list", "set", "delete", "pause", "resume", "check", "override"] as const;


/** A validated `renio budgets …` command line. */
export type BudgetAdminCommand =
  | { readonly sub: "list"; readonly target: TargetFlags; readonly json: boolean }
  | { readonly sub: "check"; readonly target: TargetFlags; readonly json: boolean }
  | { readonly sub: "set"; readonly target: TargetFlags; readonly json: boolean; readonly id: string; readonly fields: SetFields }
  | { readonly sub: "delete" | "pause" | "resume"; readonly target: TargetFlags; readonly json: boolean; readonly id: string }
  | { readonly sub: "override"; readonly target: TargetFlags; readonly json: boolean; readonly id: string; readonly endUser?: string; readonly set?: { limit: number; until: number } };

/** What `set` was given (absent: unchanged, or the default when created). */
export interface SetFields {
  readonly scope?: BudgetConfig["scope"];
  readonly period?: BudgetConfig["period"];
  readonly limit?: number;
  readonly mode?: "strict" | "observe";
}

const TARGET = { ...TARGET_OPTIONS, json: { type: "boolean" } } as const;
const SET = {
  ...TARGET,
  scope: { type: "string", valueName: "total, project:NAME, key:ID, team:ID, tag:NAME=VALUE or end-user:PROJECT" },
  period: { type: "string", oneOf: ["day", "month", "total"] },
  limit: { type: "string", valueName: "an amount" },
  mode: { type: "string", oneOf: ["strict", "observe"] },
} as const;

const OVERRIDE = {
  ...TARGET,
  limit: { type: "string", valueName: "an amount" },
  until: { type: "string", valueName: "an ISO 8601 time, or +30m, +2h, +1d" },
  "end-user": { type: "string", valueName: "the end user (a per-end-user budget)" },
  end: { type: "boolean" },
} as const;

/** True when the subcommand of `args` is one of {@link BUDGET_ADMIN_SUBCOMMANDS}. */
export function isBudgetAdminLine(args: readonly string[]): boolean {
  return (BUDGET_ADMIN_SUBCOMMANDS as readonly string[]).includes(subcommandOf(args, { ...SET, ...OVERRIDE, "cost-at": { type: "string" } }) ?? "");
}

/** Validates `renio budgets list|set|delete|pause|resume …`; throws {@link UsageError}. Touches no store or network. */
export function parseBudgetAdminArgs(args: readonly string[]): BudgetAdminCommand {
  const line = parseSubcommand(args, { list: TARGET, set: SET, delete: TARGET, pause: TARGET, resume: TARGET, check: TARGET, override: OVERRIDE }, { set: 1, delete: 1, pause: 1, resume: 1, override: 1 });
  const { json } = line.values;
  const target = targetFlags(line.values);
  if (line.sub === "list") return { sub: "list", target, json };
  if (line.sub === "check") return { sub: "check", target, json };
  const id = line.positionals[0];
  if (id === undefined) throw new UsageError(`${line.sub} needs a budget ID`);
  if (line.sub === "override") return parseOverride(line.values, target, json, id);
  if (line.sub !== "set") return { sub: line.sub, target, json, id };
  const { scope, period, limit, mode } = line.values;
  const fields: { -readonly [K in keyof SetFields]: SetFields[K] } = {};
  if (scope !== undefined) fields.scope = parseScope(scope);
  if (period !== undefined) fields.period = period;
  if (limit !== undefined) fields.limit = parseAmount(limit);
  if (mode !== undefined) fields.mode = mode;
  if (Object.keys(fields).length === 0) throw new UsageError("set needs --limit, --mode, or --scope to create the budget");
  return { sub: "set", target, json, id, fields };
}

/**
 * Runs a parsed command through `client`; writes through `out`. `set` creates the budget when
 * given `--scope` and none exists, else changes its limit and mode (an existing budget's scope
 * and period cannot change: delete and re-create it). `check` checks the books (exit 1 when a
 * budget row drifts from the journal). Throws {@link BudgetRequestError} when the relay or the
 * store refuses. Returns the exit code.
 */
export async function executeBudgetAdminCommand(command: BudgetAdminCommand, client: BudgetClient, out: (line: string) => void): Promise<number> {
  if (command.sub === "list") {
    const rows = await client.list();
    if (command.json) out(JSON.stringify(rows, null, 2));
    else printList(rows, out);
    return 0;
  }
  if (command.sub === "check") {
    const report = await client.checkBooks();
    if (command.json) out(JSON.stringify(report, null, 2));
    else printBooks(report, out);
    return report.ok ? 0 : 1;
  }
  if (command.sub === "override") {
    const override = command.set === undefined ? await client.endOverride(command.id, command.endUser) : await client.override(command.id, { ...command.set, ...(command.endUser === undefined ? {} : { endUser: command.endUser }) });
    if (command.json) out(JSON.stringify(command.set === undefined ? { ...override, ended: true } : override, null, 2));
    else out(`${command.set === undefined ? "ended the override of" : "overrode"} budget ${override.budgetId}: limit ${round(override.limit)} until ${new Date(override.until).toISOString()}`);
    return 0;
  }
  let budget: StoredBudget;
  if (command.sub === "set") budget = await setBudget(client, command.id, command.fields);
  else if (command.sub === "delete") budget = await client.remove(command.id);
  else budget = await client.update(command.id, { paused: command.sub === "pause" });
  if (command.json) out(JSON.stringify(command.sub === "delete" ? { ...budget, deleted: true } : budget, null, 2));
  else out(`${command.sub === "delete" ? "deleted" : command.sub === "set" ? "set" : command.sub === "pause" ? "paused" : "resumed"} ${describe(budget)}`);
  return 0;
}

async function setBudget(client: BudgetClient, id: string, fields: SetFields): Promise<StoredBudget> {
  const change: Record<string, unknown> = {};
  if (fields.limit !== undefined) change["limit"] = fields.limit;
  if (fields.mode !== undefined) change["mode"] = fields.mode;
  if (fields.scope !== undefined) {
    try {
      return await client.create({ id, ...fields });
    } catch (error) {
      if (!(error instanceof BudgetRequestError) || error.code !== "budget_exists") throw error;
      const current = (await client.list()).find((row) => row.budgetId === id && row.source === "store");
      if (current === undefined) throw error;
      if (scopeText(current.scope) !== scopeText(fields.scope) || (fields.period !== undefined && !periodMatches(current.period, fields.period))) {
        throw new BudgetRequestError(409, "budget_exists", `budget \`${id}\` exists with scope ${scopeText(current.scope)}; its scope and period cannot change (delete it and set it again)`);
      }
    }
  }
  if (Object.keys(change).length === 0) throw new BudgetRequestError(409, "budget_exists", `budget \`${id}\` exists; give --limit or --mode to change it`);
  try {
    return await client.update(id, change);
  } catch (error) {
    if (error instanceof BudgetRequestError && error.code === "budget_not_found") {
      throw new BudgetRequestError(404, error.code, `no budget \`${id}\` in the store; give --scope (and --limit) to create it`);
    }
    throw error;
  }
}

/** Whether a listed period row ("total", "2026-12", "2026-12-03") is of the period kind. */
function periodMatches(period: string, kind: NonNullable<SetFields["period"]>): boolean {
  return kind === "total" ? period === "total" : kind === "month" ? /^\d{4}-\d{2}$/.test(period) : /^\d{4}-\d{2}-\d{2}$/.test(period);
}

function parseScope(text: string): BudgetConfig["scope"] {
  if (text === "total") return "total";
  const match = /^(project|key|team|tag|end-user):(.+)$/.exec(text);
  const tag = match?.[1] === "tag" ? /^([^=]+)=(.+)$/.exec(match[2]!) : undefined;
  if (!match || tag === null) throw new UsageError(`--scope must be total, project:NAME, key:ID, team:ID, tag:NAME=VALUE or end-user:PROJECT, got "${text}"`);
  const value = match[2]!;
  if (match[1] === "project") return { project: value };
  if (match[1] === "key") return { key: value };
  if (match[1] === "team") return { team: value };
  if (tag !== undefined) return { tag: { name: tag[1]!, value: tag[2]! } };
  return { endUser: { project: value } };
}

/** `override ID --limit X --until T [--end-user U]`, or `override ID --end [--end-user U]`. */
function parseOverride(values: { limit?: string; until?: string; "end-user"?: string; end?: boolean }, target: TargetFlags, json: boolean, id: string): BudgetAdminCommand {
  const endUser = values["end-user"];
  const base = { sub: "override" as const, target, json, id, ...(endUser === undefined ? {} : { endUser }) };
  if (values.end === true) {
    if (values.limit !== undefined || values.until !== undefined) throw new UsageError("override --end takes no --limit or --until");
    return base;
  }
  if (values.limit === undefined || values.until === undefined) throw new UsageError("override needs --limit and --until (or --end to end one now)");
  return { ...base, set: { limit: parseAmount(values.limit), until: parseUntil(values.until, Date.now()) } };
}

/** An ISO 8601 time, or `+N` minutes (m), hours (h) or days (d) from `now`; epoch ms. */
export function parseUntil(text: string, now: number): number {
  const relative = /^\+(\d+)([mhd])$/.exec(text);
  if (relative) return now + Number(relative[1]) * { m: 60_000, h: 3_600_000, d: 86_400_000 }[relative[2] as "m" | "h" | "d"];
  const at = /^\d{4}-\d{2}-\d{2}T/.test(text) ? Date.parse(text) : Number.NaN;
  if (!Number.isFinite(at)) throw new UsageError(`--until must be an ISO 8601 time (2026-12-24T18:00:00Z) or +30m, +2h, +1d, got "${text}"`);
  return at;
}

function parseAmount(text: string): number {
  const value = /^\d+(\.\d+)?$/.test(text) ? Number(text) : Number.NaN;
  if (!Number.isFinite(value)) throw new UsageError(`--limit must be an amount such as 12.5, got "${text}"`);
  return value;
}

/** `total`, `project:P` or `key:K` (`-` for a budget no longer defined). */
export function scopeText(scope: BudgetConfig["scope"] | null): string {
  if (scope === null) return "-";
  return scopeLabel(scope);
}

function describe(b: StoredBudget): string {
  return `budget ${b.id}: ${scopeText(b.scope)}, ${b.period}, ${b.mode}${b.paused ? " (paused)" : ""}, limit ${round(b.limit)}`;
}

/** Each budget row against the journal, then whether the books hold. */
function printBooks(report: BooksReport, out: (line: string) => void): void {
  const header = ["BUDGET", "PERIOD", "RESERVED", "IN_FLIGHT", "SPENT", "JOURNAL_COST", "PRUNED", "DRIFT"];
  const cells = report.rows.map((r) => {
    const drift = [r.reservedDrift !== 0 && `reserved ${round(r.reservedDrift)}`, r.spentDrift !== 0 && `spent ${round(r.spentDrift)}`].filter(Boolean).join(", ");
    return [r.budgetId, r.period, round(r.reserved), round(r.journalReserved), round(r.spent), round(r.journalSpent), round(r.pruned), drift || "-"];
  });
  if (cells.length > 0) printTable(header, cells, out);
  const checked = `${report.rows.length} budget row(s), ${report.openEntries} entries holding a reservation, ${report.finishedEntries} finished entries with charges, in ${Math.round(report.seconds * 1000)} ms`;
  out(report.ok ? `the books hold: ${checked}` : `DRIFT in ${report.driftingRows} budget row(s): ${checked}`);
}

function printList(rows: readonly BudgetListing[], out: (line: string) => void): void {
  if (rows.length === 0) {
    out("(no budgets)");
    return;
  }
  const header = ["BUDGET", "SOURCE", "SCOPE", "PERIOD", "MODE", "LIMIT", "SPENT", "RESERVED", "REMAINING"];
  const cells = rows.map((r) => [
    r.budgetId,
    r.source ?? "-",
    scopeText(r.scope),
    r.period,
    r.mode === null ? "-" : r.paused ? `${r.mode} (paused)` : r.mode,
    round(r.limit),
    round(r.spent),
    round(r.reserved),
    round(r.remaining),
  ]);
  printTable(header, cells, out);
}
