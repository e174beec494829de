// Guardrails: what policies found over a range, and the calls on which one fired.
import { api } from "./dashboard-api.js";
import { el, rangePicker, table } from "./dashboard-dom.js";
import { number, time } from "./dashboard-format.js";
import { section } from "./dashboard-section.js";
import { entryTable } from "./journal-view.js";
import { RANGES } from "./usage-view.js";

const guardrailColumns = [
  ["Policy", (r) => r.policy],
  ["On", (r) => r.on],
  ["Detector", (r) => r.detector],
  ["Action", (r) => r.action],
  ["Calls", (r) => r.calls, number, true],
  ["Matches", (r) => r.matches, number, true],
  ["Check failures", (r) => r.failures, number, true],
  ["Last", (r) => r.lastAt, time],
];

export function guardrails(page, range = "24h") {
  const until = Date.now() + 1;
  const since = until - RANGES[range];
  page.replaceChildren(
    el("h1", { text: "Guardrails" }),
    rangePicker(RANGES, range, (next) => guardrails(page, next)),
    section("What policies found, by policy and detector", async () => {
      const body = await api(`/admin/dashboard/guardrails?since=${since}&until=${until}`);
      return [
        table(guardrailColumns, body.data, { sortBy: 4, empty: "No policy fired in this range." }),
        body.truncated ? el("p", { class: "muted", text: `Summed over the newest ${number(body.entries)} entries of the range.` }) : null,
      ];
    }),
    section("Calls on which a policy fired, newest first", async () => {
      const { data } = await api(`/admin/journal?guardrails=1&limit=25&since=${since}&until=${until}`);
      return entryTable(data, "No policy fired in this range.");
    }),
  );
}
