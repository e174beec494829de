import type { BudgetConfig } from "../config/config-schema.ts";
import { periodOf } from "../budget/budget-plan.ts";
import type { Store } from "../storage/store.ts";
import { parseFlags, UsageError } from "./cli-journal.ts";

const usage = "usage: renio budget status [--json]\n       renio budget reconcile [--cost-at reserved|zero] [--json]";

/** One configured budget in its current period. */
export interface BudgetStatusRow {
  budgetId: string;
  scope: string;
  period: string;
  mode: string;
  limit: number;
  spent: number;
  reserved: number;
  remaining: number;
}

/**
 * `renio budget status|reconcile`. Writes lines through `out`; returns the exit code
 * (0 ok, 2 bad arguments).
 */
export async function runBudgetCommand(args: string[], store: Store, budgets: BudgetConfig[], out: (line: string) => void): Promise<number> {
  const [sub, ...rest] = args;
  try {
    if (sub === "status") {
      const flags = parseFlags(rest, ["json"]);
      const rows = await budgetStatus(store, budgets, new Date());
      if (flags.json !== undefined) out(JSON.stringify(rows, null, 2));
      else printStatus(rows, out);
      return 0;
    }
    if (sub === "reconcile") {
      const flags = parseFlags(rest, ["cost-at", "json"]);
      const costAt = flags["cost-at"] ?? "reserved";
      if (costAt !== "reserved" && costAt !== "zero") return fail("--cost-at must be reserved or zero", out);
      const result = await store.reconcile(costAt, Date.now());
      if (flags.json !== undefined) out(JSON.stringify(result));
      else out(`reconciled ${result.entries} interrupted call(s): ${round(result.charged)} charged, ${round(result.released)} released`);
      return 0;
    }
    return fail(sub === undefined ? "missing subcommand" : `unknown subcommand "${sub}"`, out);
  } catch (error) {
    if (error instanceof UsageError) return fail(error.message, out);
    throw error;
  }
}

/** Every configured budget in the period `now` falls in, with its stored usage (zero if none yet). */
export async function budgetStatus(store: Store, budgets: readonly BudgetConfig[], now: Date): Promise<BudgetStatusRow[]> {
  const keys = budgets.map((b) => ({ budgetId: b.id, period: periodOf(b.period, now) }));
  const usage = new Map((await store.budgetUsage(keys)).map((u) => [`${u.budgetId}\u0000${u.period}`, u]));
  return budgets.map((b, i) => {
    const period = keys[i]?.period ?? "total";
    const u = usage.get(`${b.id}\u0000${period}`);
    const spent = u?.spent ?? 0;
    const reserved = u?.reserved ?? 0;
    return { budgetId: b.id, scope: scopeText(b.scope), period, mode: b.mode ?? "default", limit: b.limit, spent, reserved, remaining: b.limit - spent - reserved };
  });
}

function scopeText(scope: BudgetConfig["scope"]): string {
  if (scope === "total") return "total";
  return "project" in scope ? `project:${scope.project}` : `key:${scope.key}`;
}

const round = (n: number): string => String(Math.round(n * 1e6) / 1e6);

function printStatus(rows: readonly BudgetStatusRow[], out: (line: string) => void): void {
  if (rows.length === 0) {
    out("(no budgets configured)");
    return;
  }
  const header = ["BUDGET", "SCOPE", "PERIOD", "MODE", "LIMIT", "SPENT", "RESERVED", "REMAINING"];
  const cells = rows.map((r) => [r.budgetId, r.scope, r.period, r.mode, round(r.limit), round(r.spent), round(r.reserved), round(r.remaining)]);
  const widths = header.map((h, i) => Math.max(h.length, ...cells.map((c) => (c[i] as string).length)));
  for (const row of [header, ...cells]) out(row.map((c, i) => c.padEnd(widths[i] as number)).join("  ").trimEnd());
}

function fail(message: string, out: (line: string) => void): number {
  out(`renio budget: ${message}`);
  out(usage);
  return 2;
}
