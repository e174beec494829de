// Usage tables (by key, project, model, provider) over a chosen range: the Models & providers page.
import { api } from "./dashboard-api.js";
import { el, rangePicker, table } from "./dashboard-dom.js";
import { money, ms, number, time } from "./dashboard-format.js";
import { section } from "./dashboard-section.js";

export const RANGES = { "24h": 86_400_000, "7d": 7 * 86_400_000, "30d": 30 * 86_400_000 };

export const usageColumns = (label) => [
  [label, (r) => r.group ?? "(none)"],
  ["Calls", (r) => r.calls, number, true],
  ["Errors", (r) => r.errors, number, true],
  ["Refused", (r) => r.refused, number, true],
  ["Input tokens", (r) => r.inputTokens, number, true],
  ["Cached", (r) => r.cachedInputTokens, number, true],
  ["Output tokens", (r) => r.outputTokens, number, true],
  ["Spend", (r) => r.cost, money, true],
  ["Last call", (r) => r.lastAt, time],
];

const latencyColumns = (label) => [
  [label, (r) => r.group ?? "(none)"],
  ["Calls", (r) => r.calls, number, true],
  ["Errors", (r) => r.errors, number, true],
  ["Error rate", (r) => (r.calls > 0 ? r.errors / r.calls : null), (v) => (v === null ? "—" : `${(100 * v).toFixed(1)} %`), true],
  ["Latency p50", (r) => r.totalMsP50, ms, true],
  ["Latency p95", (r) => r.totalMsP95, ms, true],
  ["Overhead p50", (r) => r.overheadMsP50, ms, true],
  ["Overhead p95", (r) => r.overheadMsP95, ms, true],
  ["Tokens in", (r) => r.inputTokens, number, true],
  ["Tokens out", (r) => r.outputTokens, number, true],
  ["Spend", (r) => r.cost, money, true],
];

/** Usage sections grouped by each of `groups` ([by, title, columns]) over `range`. */
export function usageSections(groups, range) {
  const until = Date.now() + 1;
  const since = until - RANGES[range];
  return groups.map(([by, heading, columns]) =>
    section(heading, async () => {
      const { data } = await api(`/admin/dashboard/usage?by=${by}&since=${since}&until=${until}`);
      return table(columns, data, { sortBy: 1, empty: "No calls in this range." });
    }),
  );
}

export function models(page, range = "24h") {
  page.replaceChildren(
    el("h1", { text: "Models & providers" }),
    rangePicker(RANGES, range, (next) => models(page, next)),
    ...usageSections([["model", "By model", latencyColumns("Model")], ["provider", "By provider", latencyColumns("Provider")]], range),
  );
}
