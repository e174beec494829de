// Budgets: each budget's state at a glance (paused, refusing, over, near its limit), creating,
// changing, pausing and resuming budgets (role budgets), and alert deliveries.
import { api, may, send } from "./dashboard-api.js";
import { badge, confirmAction, el, field, table } from "./dashboard-dom.js";
import { exactAmount, money, percent, scopeText, time } from "./dashboard-format.js";
import { notice, section } from "./dashboard-section.js";

/** Spent and reserved past this share of the limit: "near limit". */
const NEAR = 0.8;
/** Refusals are counted over this last stretch of time. */
const REFUSAL_WINDOW_MS = 3_600_000;
const BUDGET_REFUSALS = new Set(["budget_exceeded", "budget_paused"]);

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
  const bar = el("div", { class: "bar", role: "img", "aria-label": `spent ${money(row.spent)}, reserved ${money(row.reserved)} of ${money(row.limit)}` });
  const spent = el("span", { class: "spent" });
  const reserved = el("span", { class: "reserved" });
  spent.style.width = `${Math.min(100, (100 * row.spent) / scale)}%`;
  reserved.style.width = `${Math.min(100, (100 * row.reserved) / scale)}%`;
  bar.append(spent, reserved);
  return bar;
}

/** Budget refusals of the last hour that fall in `scope`. */
function refusalsIn(scope, refused) {
  return refused.filter((e) => scope === "total" || (scope?.project !== undefined && e.project === scope.project) || (scope?.key !== undefined && e.keyId === scope.key)).length;
}

/** The badges of one budget row, most urgent first. */
function badges(row, refusals) {
  const used = row.limit > 0 ? (row.spent + row.reserved) / row.limit : 0;
  return [
    row.paused ? badge("paused", "bad") : null,
    refusals > 0 && row.mode === "strict" ? badge(`refusing · ${refusals} in the last hour`, "bad", "refusing") : null,
    row.spent >= row.limit ? badge("over limit", "bad", "over") : used >= NEAR ? badge("near limit", "warn", "near") : null,
    row.mode === "observe" ? badge("observe only", "muted", "observe") : null,
    row.source === "config" ? badge("from config", "muted", "config") : null,
  ];
}

function hint(row, refusals) {
  if (row.paused) return "Paused: every call it covers is refused (429 budget_paused) until it is resumed.";
  if (refusals > 0 && row.mode === "strict") return "Calls it covers are being refused: the reservation of a call (its price times the possible output tokens) no longer fits the remaining amount. Raise the limit, or have callers set max_tokens.";
  return null;
}

function budgetControls(row, reload) {
  if (row.source !== "store" || !may("budgets")) return null;
  const path = `/admin/budgets/${encodeURIComponent(row.budgetId)}`;
  const limit = el("input", { type: "number", min: "0", step: "any", value: exactAmount(row.limit), "aria-label": `New limit of ${row.budgetId}`, name: "limit" });
  const pause = async () => {
    const pausing = !row.paused;
    if (pausing && !(await confirmAction(`Pause ${row.budgetId}?`, `Every call it covers (${scopeText(row.scope)}) is refused until you resume it.`, "Pause"))) return;
    await send("PATCH", path, { paused: pausing });
  };
  const mode = el("select", { name: "mode", "aria-label": `Mode of ${row.budgetId}` }, ...["strict", "observe"].map((m) => el("option", { value: m, selected: m === row.mode, text: m })));
  const change = async () => {
    const value = Number(limit.value);
    const changes = [value !== row.limit ? `the limit from ${money(row.limit)} to ${money(value)}` : null, mode.value !== row.mode ? `the mode from ${row.mode} to ${mode.value}` : null].filter(Boolean);
    if (changes.length === 0) return;
    if (!(await confirmAction(`Change ${row.budgetId}?`, `Change ${changes.join(" and ")}.`, "Change"))) return;
    await send("PATCH", path, { ...(value !== row.limit ? { limit: value } : {}), ...(mode.value !== row.mode ? { mode: mode.value } : {}) });
  };
  const run = (action) => async () => {
    try {
      await action();
      reload();
    } catch (error) {
      reload(error);
    }
  };
  return el("div", { class: "row-actions" },
    el("button", { type: "button", "data-action": row.paused ? "resume" : "pause", class: row.paused ? null : "danger", on: { click: run(pause) } }, row.paused ? "Resume" : "Pause"),
    limit,
    mode,
    el("button", { type: "button", "data-action": "change", on: { click: run(change) } }, "Change"),
  );
}

function budgetRow(row, now, refused, reload) {
  const projection = projected(row, now);
  const refusals = refusalsIn(row.scope, refused);
  const advice = hint(row, refusals);
  return el("div", { class: `budget${row.paused ? " paused" : ""}`, "data-budget": row.budgetId },
    el("div", { class: "budget-head" },
      el("strong", { text: row.budgetId }),
      el("span", { class: "muted", text: ` ${scopeText(row.scope)} · ${row.period} · ${row.mode ?? "not configured"}` }),
      el("span", { class: "badges" }, badges(row, refusals)),
    ),
    budgetBar(row),
    el("div", { class: "budget-figures" },
      el("span", {}, "Spent ", el("b", { "data-figure": "spent", title: exactAmount(row.spent), text: money(row.spent) })),
      el("span", {}, "Reserved ", el("b", { "data-figure": "reserved", title: exactAmount(row.reserved), text: money(row.reserved) })),
      el("span", {}, "Limit ", el("b", { "data-figure": "limit", title: exactAmount(row.limit), text: money(row.limit) })),
      el("span", {}, "Used ", el("b", { text: percent(row.spent + row.reserved, row.limit) })),
      el("span", {}, "Projected end of period ", el("b", { "data-figure": "projected", class: projection !== null && projection > row.limit ? "over" : null, text: projection === null ? "—" : money(projection) })),
    ),
    advice ? el("p", { class: "hint", "data-hint": "", text: advice }) : null,
    budgetControls(row, reload),
  );
}

function createForm(reload) {
  const id = el("input", { name: "id", required: true, pattern: "[A-Za-z0-9._:\\-]+", maxlength: 128 });
  const kind = el("select", { name: "scope" }, el("option", { value: "total", text: "all calls" }), el("option", { value: "project", text: "a project" }), el("option", { value: "key", text: "a key" }));
  const target = el("input", { name: "target", placeholder: "project or key id", maxlength: 128 });
  const period = el("select", { name: "period" }, ...["month", "day", "total"].map((p) => el("option", { value: p, text: p })));
  const limit = el("input", { name: "limit", type: "number", min: "0", step: "any", required: true });
  const mode = el("select", { name: "mode" }, el("option", { value: "strict", text: "strict: refuse past the limit" }), el("option", { value: "observe", text: "observe: only record" }));
  const problem = el("p", { class: "error", role: "alert" });
  const form = el("form", { class: "manage", "data-form": "create-budget" },
    field("Budget id", id), field("Covers", kind), field("Project / key", target), field("Period", period), field("Limit", limit), field("Mode", mode),
    el("button", { type: "submit" }, "Create budget"), problem,
  );
  form.addEventListener("submit", async (event) => {
    event.preventDefault();
    problem.textContent = "";
    const scope = kind.value === "total" ? "total" : { [kind.value]: target.value.trim() };
    try {
      await send("POST", "/admin/budgets", { id: id.value.trim(), scope, period: period.value, limit: Number(limit.value), mode: mode.value });
      form.reset();
      reload();
    } catch (error) {
      problem.textContent = error.message;
    }
  });
  return form;
}

export function budgets(page) {
  const list = el("div");
  const reload = (error) => {
    list.replaceChildren(section("Spent, reserved and limit", async () => {
      const since = Date.now() - REFUSAL_WINDOW_MS;
      const [{ data }, refusedPage] = await Promise.all([api("/admin/budgets"), api(`/admin/journal?outcome=refused&since=${since}&limit=1000`)]);
      const refused = refusedPage.data.filter((e) => BUDGET_REFUSALS.has(e.errorCode));
      const now = Date.now();
      return [
        error ? notice(error) : null,
        data.length === 0 ? el("p", { class: "muted", text: "No budgets yet." }) : el("div", { class: "budgets" }, ...data.map((row) => budgetRow(row, now, refused, reload))),
      ];
    }, 15_000));
  };
  page.replaceChildren(
    el("h1", { text: "Budgets" }),
    ...(may("budgets") ? [el("details", { class: "create" }, el("summary", { class: "button primary", text: "+ Create a budget" }), el("section", {}, createForm(reload)))] : []),
    list,
    section("Alerts", async () => {
      const { data } = await api("/admin/alerts");
      const tone = { delivered: "ok", pending: "warn", failed: "bad" };
      return table([
        ["Budget", (r) => r.budgetId],
        ["Period", (r) => r.period],
        ["Threshold", (r) => r.threshold, (v) => (v === null ? "—" : `${v} %`), true],
        ["Webhook", (r) => r.webhook],
        ["Delivery", (r) => r.status, (v) => badge(v, tone[v] ?? "muted")],
        ["Attempts", (r) => r.attempts, undefined, true],
        ["Last error", (r) => r.lastError],
        ["At", (r) => r.createdAt, time],
      ], data, { empty: "No alerts." });
    }),
  );
  reload();
}
