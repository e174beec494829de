// Overview: today's and this month's figures and the last 24 hours in charts, refreshed by itself.
import { api } from "./dashboard-api.js";
import { card, chart, el } from "./dashboard-dom.js";
import { exactAmount, money, number } from "./dashboard-format.js";
import { section } from "./dashboard-section.js";

/** How often Overview loads its figures again. */
const REFRESH_MS = 15_000;

export function overview(page) {
  page.append(
    el("h1", { text: "Overview" }),
    section("Today and this month (UTC)", async () => {
      const { today, month, series } = await api("/admin/dashboard/overview");
      // Every bucket of the range, empty ones too, so the time axis spans the whole range.
      const byAt = new Map(series.buckets.map((b) => [b.at, b]));
      const times = [];
      for (let at = Math.floor(series.since / series.bucketMs) * series.bucketMs; at < series.until; at += series.bucketMs) times.push(at);
      const column = (name, empty) => times.map((at) => byAt.get(at)?.[name] ?? empty);
      return [
        el("div", { class: "cards" },
          card("Calls today", number(today.calls), "today-calls"),
          card("Errors today", number(today.errors), "today-errors"),
          card("Refused today", number(today.refused), "today-refused"),
          card("Spend today", money(today.cost), "today-cost", exactAmount(today.cost)),
          card("Cache hits today", number(today.cacheHits), "today-cache-hits"),
          card("Saved by the cache today", money(today.savedCost), "today-cache-saved", exactAmount(today.savedCost)),
          card("Calls this month", number(month.calls), "month-calls"),
          card("Spend this month", money(month.cost), "month-cost", exactAmount(month.cost)),
        ),
        series.buckets.length === 0
          ? el("p", { class: "muted", text: "No calls in the last 24 hours." })
          : [
              chart("Calls per hour", times, { calls: column("calls", 0), errors: column("errors", 0), refused: column("refused", 0) }, "calls"),
              chart("Relay overhead p50 / p95 (total − upstream)", times, { p50: column("overheadMsP50", null), p95: column("overheadMsP95", null) }, "ms"),
            ],
      ];
    }, REFRESH_MS),
  );
}
