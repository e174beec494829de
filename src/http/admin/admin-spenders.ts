import { Hono } from "hono";
import { periodOf } from "../../budgets/budget-plan.ts";
import type { DefinedBudget } from "../../budgets/budget-usage.ts";
import type { DaySpend as StoredDay, JournalReader } from "../../journal/journal-store.ts";
import { RelayError } from "../../shared/relay-error.ts";
import { sumAmounts } from "../../shared/money.ts";
import type { HttpEnv } from "../app.ts";
import { requireRole } from "./admin-auth.ts";
import { timeParam } from "./admin-query.ts";

const DAY = 86_400_000;
/** The most end users one answer lists. */
const MAX_END_USERS = 500;

/** One day's calls and cost of one team or tag. */
interface DaySpendRow {
  day: string;
  group: string;
  calls: number;
  cost: number;
}

/**
 * Who spends (role `read`): `GET /admin/spenders` (spend per UTC day by team and by tag, and
 * the heaviest end users, over `since`/`until`, default today; `limit` end users, default 20)
 * and `GET /admin/spenders/budgets/{id}` (a per-end-user budget's end users in its current
 * period, most used first).
 */
export function spenderRoutes(
  store: JournalReader,
  budgets: () => Promise<readonly DefinedBudget[]>,
  teamOf: (project: string) => string | null,
  sync: (() => Promise<void>) | undefined,
): Hono<HttpEnv> {
  const api = new Hono<HttpEnv>();
  api.use(requireRole("read"));

  api.get("/", async (c) => {
    const now = Date.now();
    const until = timeParam(c.req.query("until"), "until") ?? now + 1;
    const since = timeParam(c.req.query("since"), "since") ?? Math.floor(now / DAY) * DAY;
    if (since >= until) throw new RelayError(400, "invalid_request", "`since` must be before `until`");
    const limit = limitParam(c.req.query("limit"), 20);
    await sync?.();
    const [projects, tags, endUsers] = await Promise.all([store.spendByDay({ since, until }, "project"), store.spendByDay({ since, until }, "tags"), store.endUserSpend({ since, until, limit })]);
    return c.json({
      object: "spenders",
      since,
      until,
      // A team's spend is its projects' (as the teams in force group them): read from the hourly rollup.
      teams: byDay(projects, (group) => {
        const team = group === null ? null : teamOf(group);
        return team === null ? [] : [team];
      }),
      tags: byDay(tags, (group) => (group === null ? [] : (JSON.parse(group) as Array<[string, string]>).map(([name, value]) => `${name}=${value}`))),
      endUsers,
    });
  });

  api.get("/budgets/:id", async (c) => {
    const id = c.req.param("id");
    const budget = (await budgets()).find((b) => b.id === id);
    if (budget === undefined) throw new RelayError(404, "budget_not_found", `No budget \`${id}\` in the config or the store`);
    if (typeof budget.scope !== "object" || !("endUser" in budget.scope)) throw new RelayError(400, "invalid_request", `Budget \`${id}\` is not per end user`);
    await sync?.();
    const period = periodOf(budget.period, new Date());
    const rows = await store.endUserBudgetRows(id, period, limitParam(c.req.query("limit"), 50));
    const data = rows.map((row) => ({ ...row, endUser: row.budgetId.slice(id.length + 1) }));
    return c.json({ object: "list", budgetId: id, period, limit: budget.limit, data });
  });
  return api;
}

/** Day sums regrouped (a project's to its team, a tag set's to each of its tags), days as `YYYY-MM-DD`. */
function byDay(parts: readonly StoredDay[], groupsOf: (group: string | null) => string[]): DaySpendRow[] {
  const sums = new Map<string, { day: string; group: string; calls: number; costs: number[] }>();
  for (const part of parts) {
    const day = new Date(part.day * DAY).toISOString().slice(0, 10);
    for (const group of groupsOf(part.group)) {
      const id = `${day}\u0000${group}`;
      const sum = sums.get(id) ?? sums.set(id, { day, group, calls: 0, costs: [] }).get(id)!;
      sum.calls += part.calls;
      sum.costs.push(part.cost);
    }
  }
  return [...sums.values()].map(({ day, group, calls, costs }) => ({ day, group, calls, cost: sumAmounts(costs) }));
}

function limitParam(text: string | undefined, fallback: number): number {
  if (text === undefined) return fallback;
  const value = Number(text);
  if (!Number.isInteger(value) || value < 1 || value > MAX_END_USERS) throw new RelayError(400, "invalid_request", `\`limit\` must be an integer from 1 to ${MAX_END_USERS}`);
  return value;
}
