// Journal: entries newest first, filtered as `renio journal list` filters them; a click opens the entry.
import { api } from "./dashboard-api.js";
import { el, table } from "./dashboard-dom.js";
import { money, ms, time } from "./dashboard-format.js";
import { section } from "./dashboard-section.js";
import { showEntry } from "./entry-view.js";

const OUTCOMES = ["ok", "upstream_error", "client_aborted", "timeout", "relay_error", "refused", "interrupted", "cache_hit", "started"];

export const entryColumns = [
  ["Received", (e) => e.receivedAt, time],
  ["Key", (e) => e.keyId],
  ["Model", (e) => e.model],
  ["Provider", (e) => e.provider],
  ["Outcome", (e) => e.outcome],
  ["Status", (e) => e.status, undefined, true],
  ["Tokens in/out", (e) => (e.inputTokens === null && e.outputTokens === null ? null : `${e.inputTokens ?? 0} / ${e.outputTokens ?? 0}`), undefined, true],
  ["Cost", (e) => e.cost, money, true],
  ["Total", (e) => e.totalMs, ms, true],
  ["Guardrails", (e) => (e.guardrails ? [...new Set(e.guardrails.map((f) => `${f.policy}: ${f.action}`))].join(", ") : null)],
];

/** The entries table; a row opens its entry. */
export const entryTable = (entries, empty) => table(entryColumns, entries, { sortable: false, empty, rowId: (e) => e.id, onRow: showEntry });

export function journal(page) {
  const params = new URLSearchParams(location.hash.split("?")[1] ?? "");
  const input = (name, label, type = "text") => el("label", {}, label, el("input", { name, type, value: params.get(name) ?? "" }));
  const outcome = el("select", { name: "outcome" }, el("option", { value: "", text: "any" }), ...OUTCOMES.map((o) => el("option", { value: o, selected: params.get("outcome") === o, text: o })));
  const form = el("form", { class: "filters" },
    input("since", "Since (ISO or ms)"), input("until", "Until"), input("key", "Key"), input("request_id", "Request id"),
    el("label", {}, "Outcome", outcome),
    el("button", { type: "submit" }, "Filter"),
  );
  const results = el("div");
  form.addEventListener("submit", (event) => {
    event.preventDefault();
    const query = new URLSearchParams();
    for (const [name, value] of new FormData(form)) if (String(value).trim() !== "") query.set(name, String(value).trim());
    location.hash = `journal?${query}`;
  });
  const load = (cursor) => {
    const query = new URLSearchParams(params);
    query.set("limit", "50");
    if (cursor) query.set("cursor", cursor);
    results.replaceChildren(section("Entries, newest first", async () => {
      const body = await api(`/admin/journal?${query}`);
      return [
        entryTable(body.data, "No entries match."),
        body.next_cursor ? el("button", { type: "button", on: { click: () => load(body.next_cursor) } }, "Older entries") : null,
      ];
    }));
  };
  page.append(el("h1", { text: "Journal" }), form, results);
  load();
}
