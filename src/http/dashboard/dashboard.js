// Renio dashboard: a single page over the admin API. Every value reaches the page through
// textContent or an attribute set by the DOM API, never through innerHTML: key ids, model
// names and metadata are user data. The admin token lives in sessionStorage (this tab only)
// and is sent as a Bearer header; there is no cookie, so no request can be forged cross-site.
"use strict";

const TOKEN_KEY = "renio.adminToken";
// A Map: the page name comes from the address bar (`#constructor` is no page).
const PAGES = new Map(Object.entries({ overview, budgets, keys, models, journal, guardrails, live }));
const OUTCOMES = ["ok", "upstream_error", "client_aborted", "timeout", "relay_error", "refused", "interrupted", "cache_hit", "started"];
const RANGES = { "24h": 86_400_000, "7d": 7 * 86_400_000, "30d": 30 * 86_400_000 };
let stopPage = () => {};

/** An element with attributes/properties and children (strings become text nodes). */
function el(tag, props = {}, ...children) {
  const node = document.createElement(tag);
  for (const [name, value] of Object.entries(props)) {
    if (value === undefined || value === null || value === false) continue;
    if (name === "on") for (const [event, handler] of Object.entries(value)) node.addEventListener(event, handler);
    else if (name === "text") node.textContent = String(value);
    else node.setAttribute(name, String(value));
  }
  for (const child of children.flat()) {
    if (child === null || child === undefined || child === false) continue;
    node.append(child instanceof Node ? child : document.createTextNode(String(child)));
  }
  return node;
}

class Unavailable extends Error {}
class SignedOut extends Error {}

/** GET an admin API path as JSON with the stored token; 401 signs out, 404 is "not available". */
async function api(path) {
  const token = sessionStorage.getItem(TOKEN_KEY);
  if (!token) throw new SignedOut("Sign in with an admin token");
  const response = await fetch(path, { headers: { authorization: `Bearer ${token}` } });
  if (response.status === 401) throw new SignedOut("That admin token was not accepted");
  if (response.status === 404) throw new Unavailable(`${path.split("?")[0]} is not available on this relay`);
  const body = await response.json().catch(() => null);
  if (!response.ok) throw new Error(body?.error?.message ?? `${path} answered ${response.status}`);
  return body;
}

const number = (n) => (n === null || n === undefined ? "—" : Number(n).toLocaleString("en-US"));
/** An amount printed from its whole billionths (as Renio keeps it), never rounded as a binary fraction: thousands grouped, 4 to 9 decimals. */
const money = (n) => {
  if (n === null || n === undefined) return "—";
  const nanos = Math.round(Number(n) * 1e9);
  const whole = Math.trunc(Math.abs(nanos) / 1e9);
  const fraction = String(Math.abs(nanos) - whole * 1e9).padStart(9, "0").replace(/0+$/, "").padEnd(4, "0");
  return `${nanos < 0 ? "-" : ""}${whole.toLocaleString("en-US")}.${fraction}`;
};
const ms = (n) => (n === null || n === undefined ? "—" : `${Number(n) < 10 ? Number(n).toFixed(2) : Math.round(Number(n)).toLocaleString("en-US")} ms`);
const time = (t) => (t === null || t === undefined ? "—" : new Date(Number(t)).toISOString().replace("T", " ").replace(/\.\d+Z$/, "Z"));
const percent = (a, b) => (b > 0 ? `${((100 * a) / b).toFixed(1)} %` : "—");

function card(label, value, figure) {
  return el("div", { class: "card" }, el("span", { class: "label", text: label }), el("span", { class: "value", "data-figure": figure, text: value }));
}

function notice(error) {
  if (error instanceof SignedOut) throw error;
  return el("p", { class: error instanceof Unavailable ? "unavailable" : "error", role: "status", text: error.message });
}

/** A section whose body is filled by `load` (its failure shows in place: one missing endpoint never breaks the page). */
function section(title, load) {
  const body = el("div", { class: "section-body" }, el("p", { class: "muted", text: "Loading…" }));
  const node = el("section", {}, el("h2", { text: title }), body);
  Promise.resolve()
    .then(load)
    .then((content) => body.replaceChildren(...[content].flat(Infinity).filter((c) => c !== null && c !== undefined)))
    .catch((error) => {
      if (error instanceof SignedOut) return signOut(error.message);
      body.replaceChildren(notice(error));
    });
  return node;
}

/** A table sortable by clicking a header; columns: [label, value(row), format?, numeric?]. */
function table(columns, rows, options = {}) {
  let sortBy = options.sortBy ?? -1;
  let descending = true;
  const tbody = el("tbody");
  const headers = columns.map(([label], i) =>
    el("th", { scope: "col", tabindex: options.sortable === false ? null : 0, on: options.sortable === false ? {} : { click: () => sort(i), keydown: (e) => e.key === "Enter" && sort(i) } }, label),
  );
  function sort(i) {
    descending = sortBy === i ? !descending : true;
    sortBy = i;
    headers.forEach((th, j) => th.setAttribute("aria-sort", j === i ? (descending ? "descending" : "ascending") : "none"));
    render();
  }
  function render() {
    const sorted = sortBy < 0 ? rows : [...rows].sort((a, b) => compare(columns[sortBy][1](a), columns[sortBy][1](b)) * (descending ? -1 : 1));
    tbody.replaceChildren(
      ...sorted.map((row) =>
        el("tr", { class: options.onRow ? "clickable" : null, on: options.onRow ? { click: () => options.onRow(row) } : {} },
          ...columns.map(([, value, format, numeric]) => el("td", { class: numeric ? "num" : null, text: (format ?? ((v) => (v === null || v === undefined ? "—" : v)))(value(row)) })),
        ),
      ),
    );
  }
  render();
  if (rows.length === 0) return el("p", { class: "muted", text: options.empty ?? "Nothing yet." });
  return el("div", { class: "table-wrap" }, el("table", {}, el("thead", {}, el("tr", {}, headers)), tbody));
}

function compare(a, b) {
  if (a === b) return 0;
  if (a === null || a === undefined) return -1;
  if (b === null || b === undefined) return 1;
  return typeof a === "number" && typeof b === "number" ? a - b : String(a).localeCompare(String(b));
}

/** A uPlot line chart of `series` (name → values) over bucket times (epoch ms). */
function chart(title, times, series, yLabel) {
  const holder = el("div", { class: "chart", "data-chart": title });
  const width = () => Math.max(280, holder.clientWidth || Math.min(window.innerWidth - 48, 1100));
  const palette = ["#2563eb", "#dc2626", "#16a34a", "#9333ea"];
  const opts = {
    title,
    width: Math.min(window.innerWidth - 48, 1100),
    height: 220,
    scales: { x: { time: true } },
    axes: [{}, { label: yLabel, size: 60 }],
    series: [{}, ...Object.keys(series).map((label, i) => ({ label, stroke: palette[i % palette.length], width: 2, spanGaps: true, points: { size: 6 } }))],
  };
  const data = [times.map((t) => t / 1000), ...Object.values(series)];
  requestAnimationFrame(() => {
    const plot = new uPlot(opts, data, holder);
    const resize = () => plot.setSize({ width: width(), height: 220 });
    resize();
    window.addEventListener("resize", resize);
  });
  return holder;
}

function rangePicker(current, onChange) {
  return el("div", { class: "range", role: "group", "aria-label": "Time range" },
    ...Object.keys(RANGES).map((name) => el("button", { type: "button", class: name === current ? "active" : null, "aria-pressed": name === current, on: { click: () => onChange(name) } }, `Last ${name}`)),
  );
}

// ---------------------------------------------------------------- pages

function overview(page) {
  page.append(
    el("h1", { text: "Overview" }),
    section("Today and this month (UTC)", async () => {
      const data = await api("/admin/dashboard/overview");
      const { today, month, series } = data;
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
          card("Spend today", money(today.cost), "today-cost"),
          card("Cache hits today", number(today.cacheHits), "today-cache-hits"),
          card("Saved by the cache today", money(today.savedCost), "today-cache-saved"),
          card("Calls this month", number(month.calls), "month-calls"),
          card("Spend this month", money(month.cost), "month-cost"),
        ),
        series.buckets.length === 0
          ? el("p", { class: "muted", text: "No calls in the last 24 hours." })
          : [
              chart("Calls per hour", times, { calls: column("calls", 0), errors: column("errors", 0), refused: column("refused", 0) }, "calls"),
              chart("Relay overhead p50 / p95 (total − upstream)", times, { p50: column("overheadMsP50", null), p95: column("overheadMsP95", null) }, "ms"),
            ],
      ];
    }),
  );
}

/** Projected spend at the end of the period, at the pace so far (day and month periods). */
function projected(row, now) {
  const m = /^(\d{4})-(\d{2})(?:-(\d{2}))?$/.exec(row.period);
  if (!m) return null;
  const start = m[3] ? Date.UTC(+m[1], +m[2] - 1, +m[3]) : Date.UTC(+m[1], +m[2] - 1, 1);
  const end = m[3] ? start + 86_400_000 : Date.UTC(+m[1], +m[2], 1);
  if (now < start || now >= end) return null;
  const elapsed = Math.max(now - start, 60_000);
  return ((row.spent + row.reserved) * (end - start)) / elapsed;
}

function budgetBar(row) {
  const scale = Math.max(row.limit, row.spent + row.reserved, 1e-12);
  const bar = el("div", { class: "bar", role: "img", "aria-label": `spent ${row.spent}, reserved ${row.reserved} of ${row.limit}` });
  const spent = el("span", { class: "spent" });
  const reserved = el("span", { class: "reserved" });
  spent.style.width = `${Math.min(100, (100 * row.spent) / scale)}%`;
  reserved.style.width = `${Math.min(100, (100 * row.reserved) / scale)}%`;
  bar.append(spent, reserved);
  return bar;
}

function budgets(page) {
  page.append(
    el("h1", { text: "Budgets" }),
    section("Spent, reserved and limit", async () => {
      const { data } = await api("/admin/budgets");
      const now = Date.now();
      if (data.length === 0) return el("p", { class: "muted", text: "No budgets configured." });
      return el("div", { class: "budgets" },
        ...data.map((row) => {
          const projection = projected(row, now);
          return el("div", { class: "budget", "data-budget": row.budgetId },
            el("div", { class: "budget-head" },
              el("strong", { text: row.budgetId }),
              el("span", { class: "muted", text: ` ${row.period} · ${row.mode ?? "not configured"} · ${row.scope === null ? "" : JSON.stringify(row.scope)}` }),
            ),
            budgetBar(row),
            el("div", { class: "budget-figures" },
              el("span", {}, "Spent ", el("b", { "data-figure": "spent", text: money(row.spent) })),
              el("span", {}, "Reserved ", el("b", { "data-figure": "reserved", text: money(row.reserved) })),
              el("span", {}, "Limit ", el("b", { "data-figure": "limit", text: money(row.limit) })),
              el("span", {}, "Used ", el("b", { text: percent(row.spent + row.reserved, row.limit) })),
              el("span", {}, "Projected end of period ", el("b", { "data-figure": "projected", class: projection !== null && projection > row.limit ? "over" : null, text: projection === null ? "—" : money(projection) })),
            ),
          );
        }),
      );
    }),
    section("Alerts", async () => {
      const { data } = await api("/admin/alerts");
      return table([["Budget", (r) => r.budgetId ?? r.budget_id], ["Threshold", (r) => r.threshold], ["State", (r) => r.state ?? r.status], ["At", (r) => r.createdAt ?? r.created_at, time]], data, { empty: "No alerts." });
    }),
  );
}

const usageColumns = (label) => [
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
  ["Input tokens", (r) => r.inputTokens, number, true],
  ["Output tokens", (r) => r.outputTokens, number, true],
  ["Spend", (r) => r.cost, money, true],
];

/** A page of usage tables grouped by each of `groups` ([by, title, columns]) over a chosen range, then `extra()` sections. */
function usagePage(title, groups, extra = () => []) {
  return function render(page, range = "24h") {
    const until = Date.now() + 1;
    const since = until - RANGES[range];
    page.replaceChildren(
      el("h1", { text: title }),
      rangePicker(range, (next) => render(page, next)),
      ...groups.map(([by, heading, columns]) =>
        section(heading, async () => {
          const { data } = await api(`/admin/dashboard/usage?by=${by}&since=${since}&until=${until}`);
          return table(columns, data, { sortBy: 1, empty: "No calls in this range." });
        }),
      ),
      ...extra(),
    );
  };
}

function keys(page) {
  const configured = () => [
    section("Configured keys", async () => {
      const { data } = await api("/admin/keys");
      return table([["Key", (r) => r.id], ["Project", (r) => r.project]], data, { empty: "No keys." });
    }),
  ];
  usagePage("Keys & projects", [["key", "By key", usageColumns("Key")], ["project", "By project", usageColumns("Project")]], configured)(page);
}

function models(page) {
  usagePage("Models & providers", [["model", "By model", latencyColumns("Model")], ["provider", "By provider", latencyColumns("Provider")]])(page);
}

const entryColumns = [
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

function entryDetail(entry) {
  const rows = Object.entries(entry).map(([name, value]) => [
    el("dt", { text: name }),
    el("dd", {}, name === "guardrails" && Array.isArray(value) ? findingsTable(value) : typeof value === "string" && value.length > 120 ? el("pre", { text: value }) : String(value ?? "—")),
  ]);
  return el("div", { class: "detail", "data-entry": entry.id }, el("h3", { text: `Entry ${entry.id}` }), el("dl", {}, rows.flat()));
}

/** What guardrail policies found on one entry: policy, detector, action, where (never the matched text: the journal has none). */
function findingsTable(findings) {
  const where = (f) => [...f.at.map((p) => `${p.part} @${p.start}+${p.length}`), f.count > f.at.length ? `… ${f.count - f.at.length} more` : null].filter(Boolean).join(", ");
  return el("div", { "data-guardrails": "" }, table(
    [["Policy", (f) => f.policy], ["On", (f) => f.on], ["Detector", (f) => f.detector], ["Action", (f) => f.action], ["Matches", (f) => f.count, number, true], ["Where", where], ["Check failed", (f) => f.error ?? null]],
    findings, { sortable: false },
  ));
}

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

function guardrails(page, range = "24h") {
  const until = Date.now() + 1;
  const since = until - RANGES[range];
  const detail = el("div");
  page.replaceChildren(
    el("h1", { text: "Guardrails" }),
    rangePicker(range, (next) => guardrails(page, next)),
    section("What policies found, by policy and detector", async () => {
      const body = await api(`/admin/dashboard/guardrails?since=${since}&until=${until}`);
      return [
        table(guardrailColumns, body.data, { sortBy: 4, empty: "No policy fired in this range." }),
        body.truncated ? el("p", { class: "muted", text: `Summed over the newest ${number(body.entries)} entries of the range.` }) : null,
      ];
    }),
    section("Calls on which a policy fired, newest first", async () => {
      const { data } = await api(`/admin/journal?guardrails=1&limit=25&since=${since}&until=${until}`);
      return table(entryColumns, data, { sortable: false, empty: "No policy fired in this range.", onRow: (e) => detail.replaceChildren(entryDetail(e)) });
    }),
    detail,
  );
}

function journal(page) {
  const params = new URLSearchParams(location.hash.split("?")[1] ?? "");
  const input = (name, label, type = "text") => el("label", {}, label, el("input", { name, type, value: params.get(name) ?? "" }));
  const outcome = el("select", { name: "outcome" }, el("option", { value: "", text: "any" }), ...OUTCOMES.map((o) => el("option", { value: o, selected: params.get("outcome") === o, text: o })));
  const form = el("form", { class: "filters" },
    input("since", "Since (ISO or ms)"), input("until", "Until"), input("key", "Key"), input("request_id", "Request id"),
    el("label", {}, "Outcome", outcome),
    el("button", { type: "submit" }, "Filter"),
  );
  const results = el("div");
  const detail = el("div");
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
        table(entryColumns, body.data, { sortable: false, empty: "No entries match.", onRow: (e) => detail.replaceChildren(entryDetail(e)) }),
        body.next_cursor ? el("button", { type: "button", on: { click: () => load(body.next_cursor) } }, "Older entries") : null,
      ];
    }));
  };
  page.append(el("h1", { text: "Journal" }), form, results, detail);
  load();
}

function live(page) {
  const status = el("p", { class: "muted", text: "Polling every 2 s." });
  const body = el("div");
  let timer;
  let stopped = false;
  const poll = async () => {
    try {
      const { data } = await api("/admin/journal?limit=25");
      body.replaceChildren(table(entryColumns, data, { sortable: false, empty: "No calls yet." }));
      status.textContent = `Updated ${time(Date.now())} · polling every 2 s.`;
    } catch (error) {
      if (error instanceof SignedOut) return signOut(error.message);
      body.replaceChildren(notice(error));
    }
    if (!stopped) timer = setTimeout(poll, 2000);
  };
  page.append(el("h1", { text: "Live" }), status, body);
  poll();
  return () => {
    stopped = true;
    clearTimeout(timer);
  };
}

// ---------------------------------------------------------------- shell

function show() {
  stopPage();
  stopPage = () => {};
  const name = location.hash.slice(1).split("?")[0] || "overview";
  const render = PAGES.get(name) ?? overview;
  for (const link of document.querySelectorAll("#nav a")) link.classList.toggle("active", link.getAttribute("href") === `#${name}`);
  const page = document.getElementById("page");
  page.replaceChildren();
  page.dataset.page = PAGES.has(name) ? name : "overview";
  try {
    const stop = render(page);
    if (typeof stop === "function") stopPage = stop;
  } catch (error) {
    if (error instanceof SignedOut) signOut(error.message);
    else page.append(notice(error));
  }
}

function signOut(message) {
  stopPage();
  sessionStorage.removeItem(TOKEN_KEY);
  document.getElementById("app").hidden = true;
  document.getElementById("login").hidden = false;
  document.getElementById("login-error").textContent = message ?? "";
  document.getElementById("token").focus();
}

function signIn() {
  document.getElementById("login").hidden = true;
  document.getElementById("app").hidden = false;
  show();
}

document.getElementById("login-form").addEventListener("submit", async (event) => {
  event.preventDefault();
  const token = document.getElementById("token").value.trim();
  sessionStorage.setItem(TOKEN_KEY, token);
  try {
    await api("/admin/budgets");
    document.getElementById("token").value = "";
    signIn();
  } catch (error) {
    if (error instanceof Unavailable) return signIn(); // the token is good; this relay keeps no journal
    signOut(error instanceof SignedOut ? "That admin token was not accepted" : error.message);
  }
});
document.getElementById("sign-out").addEventListener("click", () => signOut("Signed out."));
window.addEventListener("hashchange", () => sessionStorage.getItem(TOKEN_KEY) && show());
if (sessionStorage.getItem(TOKEN_KEY)) signIn();
else signOut("");
