// Keys & projects: every key with its state, creating, rotating and revoking keys (role keys),
// and usage by key and project.
import { api, may, send } from "./dashboard-api.js";
import { badge, confirmAction, el, field, rangePicker, showPanel, table } from "./dashboard-dom.js";
import { listText, time } from "./dashboard-format.js";
import { notice, section } from "./dashboard-section.js";
import { RANGES, usageColumns, usageSections } from "./usage-view.js";

const GRACE = [["No grace: the old secret stops now", 0], ["1 hour", 3600], ["1 day", 86_400], ["7 days", 7 * 86_400]];

/** A key's state: revoked, expired, rotating (the old secret still works) or active. */
function keyState(key) {
  if (key.status === "revoked") return badge("revoked", "bad");
  if (key.status === "expired") return badge("expired", "bad");
  if (key.previousSecretValidUntil !== null && Date.parse(key.previousSecretValidUntil) > Date.now()) return badge("rotating", "warn");
  return badge("active", "ok");
}

/** The new secret, shown this once. */
function showSecret(title, key, secret) {
  const value = el("code", { class: "secret", "data-secret": "", text: secret });
  const copy = el("button", { type: "button", on: { click: () => navigator.clipboard?.writeText(secret).then(() => (copy.textContent = "Copied")) } }, "Copy");
  showPanel(title, [
    el("p", {}, "The secret of key ", el("strong", { text: key.id }), " is shown this once: store it now. Renio keeps only its hash."),
    el("div", { class: "secret-row" }, value, copy),
  ], "secret");
}

function keyActions(key, reload) {
  if (key.source !== "store" || key.status === "revoked" || !may("keys")) return key.source === "config" ? el("span", { class: "muted", text: "config file" }) : null;
  const grace = el("select", { "aria-label": `Grace period for ${key.id}` }, ...GRACE.map(([label, seconds]) => el("option", { value: seconds, text: label })));
  const rotate = async () => {
    const seconds = Number(grace.value);
    if (!(await confirmAction(`Rotate ${key.id}?`, seconds === 0 ? "A new secret replaces the current one, which stops working at once." : `A new secret replaces the current one, which keeps working for ${grace.selectedOptions[0].textContent}.`, "Rotate"))) return;
    const rotated = await send("POST", `/admin/keys/${encodeURIComponent(key.id)}/rotate`, { graceSeconds: seconds }, { "idempotency-key": crypto.randomUUID() });
    showSecret(`Key ${key.id} rotated`, rotated.key, rotated.secret);
    reload();
  };
  const revoke = async () => {
    if (!(await confirmAction(`Revoke ${key.id}?`, "Every call with this key is refused from now on (401). This cannot be undone.", "Revoke"))) return;
    await send("DELETE", `/admin/keys/${encodeURIComponent(key.id)}`);
    reload();
  };
  return el("div", { class: "row-actions" }, grace,
    el("button", { type: "button", "data-action": "rotate", on: { click: () => act(rotate, reload) } }, "Rotate"),
    el("button", { type: "button", class: "danger", "data-action": "revoke", on: { click: () => act(revoke, reload) } }, "Revoke"),
  );
}

/** Runs an action; a refusal shows where the person is looking. */
async function act(action, reload) {
  try {
    await action();
  } catch (error) {
    reload(error);
  }
}

const keyColumns = (reload) => [
  ["Key", (k) => k.id],
  ["State", (k) => k.status, (_, k) => keyState(k)],
  ["Project", (k) => k.project],
  ["Models", (k) => listText(k.models, "all models")],
  ["Regions", (k) => listText(k.regions, "any region")],
  ["Secret starts", (k) => k.prefix],
  ["Expires", (k) => k.expiresAt, time],
  ["Created", (k) => k.createdAt, time],
  ["", (k) => k.id, (_, k) => keyActions(k, reload) ?? ""],
];

function createForm(reload) {
  const id = el("input", { name: "id", placeholder: "generated", pattern: "[A-Za-z0-9._:\\-]{1,64}", maxlength: 64 });
  const project = el("input", { name: "project", value: "default", required: true, maxlength: 128 });
  const models = el("input", { name: "models", placeholder: "all models", maxlength: 4000 });
  const expires = el("input", { name: "expires", type: "datetime-local" });
  const problem = el("p", { class: "error", role: "alert" });
  const form = el("form", { class: "manage", "data-form": "create-key" },
    field("Key id", id, "letters, digits, . _ : -"), field("Project", project), field("Models", models, "comma-separated; empty: all"), field("Expires", expires, "optional"),
    el("button", { type: "submit" }, "Create key"), problem,
  );
  form.addEventListener("submit", async (event) => {
    event.preventDefault();
    problem.textContent = "";
    const body = { project: project.value.trim() };
    if (id.value.trim() !== "") body.id = id.value.trim();
    const names = models.value.split(",").map((m) => m.trim()).filter(Boolean);
    if (names.length > 0) body.models = names;
    if (expires.value !== "") body.expiresAt = new Date(expires.value).toISOString();
    try {
      const issued = await send("POST", "/admin/keys", body, { "idempotency-key": crypto.randomUUID() });
      form.reset();
      showSecret(`Key ${issued.key.id} created`, issued.key, issued.secret);
      reload();
    } catch (error) {
      problem.textContent = error.message;
    }
  });
  return form;
}

export function keys(page, range = "24h") {
  const list = el("div");
  const reload = (error) => {
    list.replaceChildren(section("Keys", async () => {
      const { data } = await api("/admin/keys");
      return [error ? notice(error) : null, table(keyColumns(reload), data, { sortable: false, rowId: (k) => k.id, empty: "No keys yet." })];
    }));
  };
  page.replaceChildren(
    el("h1", { text: "Keys & projects" }),
    ...(may("keys") ? [el("details", { class: "create" }, el("summary", { class: "button primary", text: "+ Create a key" }), el("section", {}, createForm(reload)))] : []),
    list,
    el("h2", { class: "subhead", text: "Usage" }),
    rangePicker(RANGES, range, (next) => keys(page, next)),
    ...usageSections([["key", "By key", usageColumns("Key")], ["project", "By project", usageColumns("Project")]], range),
  );
  reload();
}
