// Spenders: spend by team and by tag over time, the heaviest end users, the overrides in force,
// and each per-end-user budget's end users.
import { api } from "./dashboard-api.js";
import { chart, el, rangePicker, table } from "./dashboard-dom.js";
import { money, number } from "./dashboard-format.js";
import { section } from "./dashboard-section.js";
import { RANGES } from "./usage-view.js";

const spenderDay = (day) => Date.parse(`${day}T00:00:00Z`);

/** Days → one series per group (cost), for chart(). */
function spendSeries(rows) {
  const days = [...new Set(rows.map((r) => r.day))].sort();
  const series = {};
  for (const row of rows) (series[row.group] ??= days.map(() => null))[days.indexOf(row.day)] = row.cost;
  return { times: days.map(spenderDay), series };
}

function spendByGroup(title, rows, empty) {
  if (rows.length === 0) return el("p", { class: "muted", text: empty });
  const { times, series } = spendSeries(rows);
  return [
    times.length > 1 ? chart(title, times, series, "spend") : null,
    table([["Day", (r) => r.day], [title, (r) => r.group], ["Calls", (r) => r.calls, number, true], ["Spend", (r) => r.cost, money, true]], rows, { sortBy: 3 }),
  ];
}

export function spenders(page, range = "7d") {
  const until = Date.now() + 1;
  const since = Math.floor((until - RANGES[range]) / 86_400_000) * 86_400_000;
  const today = Math.floor(until / 86_400_000) * 86_400_000;
  const data = api(`/admin/spenders?since=${since}&until=${until}`);
  page.replaceChildren(
    el("h1", { text: "Spenders" }),
    rangePicker(RANGES, range, (next) => spenders(page, next)),
    section("Spend by team, per day", async () => spendByGroup("Team", (await data).teams, "No call of a team's project in this range.")),
    section("Spend by tag, per day", async () => spendByGroup("Tag", (await data).tags, "No tagged call in this range.")),
    section("Heaviest end users today", async () => {
      const body = await api(`/admin/spenders?since=${today}&until=${until}&limit=20`);
      const columns = [["Project", (r) => r.project], ["End user", (r) => r.endUser], ["Calls", (r) => r.calls, number, true], ["Spend", (r) => r.cost, money, true]];
      return table(columns, body.endUsers, { sortBy: 3, empty: "No call named an end user today." });
    }),
    section("Overrides in force", async () => {
      const { data: rows } = await api("/admin/budgets/overrides");
      const columns = [["Budget", (r) => r.budgetId], ["Limit", (r) => r.limit, money, true], ["Until", (r) => r.untilIso], ["Set by", (r) => r.actor]];
      return table(columns, rows, { empty: "No budget is overridden (renio budget override … --until)." });
    }),
    section("Per-end-user budgets: their end users this period", async () => {
      const { data: rows } = await api("/admin/budgets");
      const templates = rows.filter((r) => r.scope && typeof r.scope === "object" && "endUser" in r.scope);
      if (templates.length === 0) return el("p", { class: "muted", text: "No per-end-user budget." });
      const lists = await Promise.all(templates.map((t) => api(`/admin/spenders/budgets/${encodeURIComponent(t.budgetId)}?limit=20`)));
      return lists.map((list) =>
        el("div", { "data-budget": list.budgetId },
          el("h3", { text: `${list.budgetId} (${list.period}, limit ${money(list.limit)} each)` }),
          table([["End user", (r) => r.endUser], ["Spent", (r) => r.spent, money, true], ["Reserved", (r) => r.reserved, money, true], ["Remaining", (r) => r.remaining, money, true]], list.data, { sortBy: 1, empty: "No end user yet." }),
        ),
      );
    }),
  );
}
