// Renio dashboard: a single page over the admin API. This file is its shell: sign-in and
// sign-out, the pages and the connection banner; each page lives in its own module.
import { api, refreshSession, RelayDown, session, setConnectionListener, signInWithToken, signOut } from "./dashboard-api.js";
import { setCurrency } from "./dashboard-format.js";
import { notice, setSignedOutHandler } from "./dashboard-section.js";
import { audit } from "./audit-view.js";
import { budgets } from "./budgets-view.js";
import { guardrails } from "./guardrails-view.js";
import { journal } from "./journal-view.js";
import { keys } from "./keys-view.js";
import { live } from "./live-view.js";
import { overview } from "./overview-view.js";
import { spenders } from "./spenders-view.js";
import { models } from "./usage-view.js";

// A Map: the page name comes from the address bar (`#constructor` is no page).
const PAGES = new Map(Object.entries({ overview, budgets, spenders, keys, models, journal, guardrails, live, audit }));
const $ = (id) => document.getElementById(id);

function show() {
  for (const dialog of document.querySelectorAll("dialog")) dialog.remove();
  const name = location.hash.slice(1).split("?")[0] || "overview";
  const render = PAGES.get(name) ?? overview;
  for (const link of document.querySelectorAll("#nav a")) link.classList.toggle("active", link.getAttribute("href") === `#${name}`);
  const page = $("page");
  page.replaceChildren();
  page.dataset.page = PAGES.has(name) ? name : "overview";
  try {
    render(page);
  } catch (error) {
    page.append(notice(error));
  }
}

/** The sign-in form, with `message` (why it is shown) as text. */
function showSignIn(message, oidc) {
  $("app").hidden = true;
  $("login").hidden = false;
  $("login-error").textContent = message ?? "";
  if (oidc !== undefined) $("oidc-choice").hidden = !oidc;
  $("token").focus();
}

async function enter() {
  const who = session();
  $("who").textContent = `${who.actor.replace(/^oidc:/, "")} · ${who.roles.includes("admin") ? "admin" : who.roles.join(", ")}`;
  $("login").hidden = true;
  $("app").hidden = false;
  try {
    setCurrency((await api("/admin/dashboard/settings")).currency);
  } catch {
    // A relay without a journal has no dashboard data; amounts then show in the default currency.
  }
  show();
}

async function start() {
  const failed = new URLSearchParams(location.search).get("sign_in_error");
  if (failed !== null) history.replaceState(null, "", `${location.pathname}${location.hash}`);
  const hadToken = sessionStorage.getItem("renio.adminToken") !== null;
  try {
    const { signedIn, oidc } = await refreshSession();
    if (signedIn) return enter();
    showSignIn(failed ?? (hadToken ? "That admin token was not accepted." : ""), oidc);
  } catch (error) {
    if (!(error instanceof RelayDown)) throw error;
    showSignIn(error.message);
    setTimeout(start, 5000);
  }
}

setSignedOutHandler((message) => {
  showSignIn(message);
  refreshSession().then(({ oidc }) => ($("oidc-choice").hidden = !oidc)).catch(() => undefined);
});
setConnectionListener((up) => {
  $("connection").hidden = up;
});

$("login-form").addEventListener("submit", async (event) => {
  event.preventDefault();
  const token = $("token").value.trim();
  try {
    if (await signInWithToken(token)) {
      $("token").value = "";
      return enter();
    }
    showSignIn("That admin token was not accepted.");
  } catch (error) {
    showSignIn(error.message);
  }
});
$("sign-out").addEventListener("click", async () => {
  await signOut();
  showSignIn("Signed out.");
});
window.addEventListener("hashchange", () => session() && show());
start();
