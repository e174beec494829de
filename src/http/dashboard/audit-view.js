// Audit: every admin action, who did it (an admin token's id or the signed-in person), and when.
import { api } from "./dashboard-api.js";
import { el, table } from "./dashboard-dom.js";
import { bothTimes } from "./dashboard-format.js";
import { section } from "./dashboard-section.js";

/** A before/after state in one line of `name: value` pairs (never a secret: the audit holds none). */
function stateText(state) {
  if (state === null || state === undefined) return "—";
  if (typeof state !== "object") return String(state);
  return Object.entries(state).filter(([name]) => !["createdAt", "updatedAt", "object"].includes(name))
    .map(([name, value]) => `${name}: ${value !== null && typeof value === "object" ? JSON.stringify(value) : value}`).join(" · ");
}

export function audit(page) {
  page.append(
    el("h1", { text: "Audit" }),
    section("Admin actions, newest first", async () => {
      const { data } = await api("/admin/audit?limit=200");
      return table([
        ["When", (e) => e.at, bothTimes],
        ["Who", (e) => e.actor],
        ["Action", (e) => e.action],
        ["Target", (e) => e.target],
        ["After", (e) => stateText(e.after)],
      ], data, { sortable: false, empty: "No admin action yet." });
    }, 15_000),
  );
}
