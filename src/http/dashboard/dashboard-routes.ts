import { Hono } from "hono";
import uplotCss from "uplot/dist/uPlot.min.css" with { type: "text" };
import uplotJs from "uplot/dist/uPlot.iife.min.js" with { type: "text" };
import css from "./dashboard.css" with { type: "text" };
import js from "./dashboard.js" with { type: "text" };
import apiJs from "./dashboard-api.js" with { type: "text" };
import domJs from "./dashboard-dom.js" with { type: "text" };
import formatJs from "./dashboard-format.js" with { type: "text" };
import sectionJs from "./dashboard-section.js" with { type: "text" };
import auditView from "./audit-view.js" with { type: "text" };
import budgetsView from "./budgets-view.js" with { type: "text" };
import entryView from "./entry-view.js" with { type: "text" };
import guardrailsView from "./guardrails-view.js" with { type: "text" };
import journalView from "./journal-view.js" with { type: "text" };
import keysView from "./keys-view.js" with { type: "text" };
import liveView from "./live-view.js" with { type: "text" };
import spendersView from "./spenders-view.js" with { type: "text" };
import overviewView from "./overview-view.js" with { type: "text" };
import usageView from "./usage-view.js" with { type: "text" };
import html from "./index.html" with { type: "text" };
import type { HttpEnv } from "../app.ts";
import { signInRoutes, type SignInDeps } from "./dashboard-sign-in.ts";

/**
 * Every response of the dashboard: scripts and styles only from this origin (no inline
 * script, no eval), data only from the admin API, never framed.
 */
export const DASHBOARD_HEADERS: Readonly<Record<string, string>> = {
  "content-security-policy":
    "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; connect-src 'self'; object-src 'none'; base-uri 'none'; form-action 'self'; frame-ancestors 'none'",
  "x-content-type-options": "nosniff",
  "referrer-policy": "no-referrer",
  "x-frame-options": "DENY",
  "cache-control": "no-cache",
};

/** The page's script modules by file name (the shell imports the rest). */
const SCRIPTS: Readonly<Record<string, string>> = {
  "dashboard.js": js, "dashboard-api.js": apiJs, "dashboard-dom.js": domJs, "dashboard-format.js": formatJs, "dashboard-section.js": sectionJs,
  "audit-view.js": auditView, "budgets-view.js": budgetsView, "entry-view.js": entryView, "guardrails-view.js": guardrailsView, "journal-view.js": journalView,
  "keys-view.js": keysView, "live-view.js": liveView, "overview-view.js": overviewView, "spenders-view.js": spendersView, "usage-view.js": usageView,
};

/** Path → [content type, body]: the page, its scripts and style, and uPlot, embedded in the executable as text imports. */
const ASSETS: ReadonlyMap<string, readonly [string, string]> = new Map<string, readonly [string, string]>([
  // String(): Bun's types call an .html import an HTML bundle; `type: "text"` makes it the file's text.
  ["/", ["text/html; charset=utf-8", String(html)]],
  ...Object.entries(SCRIPTS).map(([name, text]): [string, readonly [string, string]] => [`/${name}`, ["text/javascript; charset=utf-8", text]]),
  ["/dashboard.css", ["text/css; charset=utf-8", css]],
  ["/uplot.js", ["text/javascript; charset=utf-8", uplotJs]],
  ["/uplot.css", ["text/css; charset=utf-8", uplotCss]],
]);

/**
 * The dashboard, mounted at /dashboard on the listener serving the admin API; like the admin
 * routes it exists only while admin tokens or sign-in are configured (`enabled`, read per
 * request, so a reload changes it). The assets are public (they hold no data); the page signs
 * in with an admin token or the identity provider (`/dashboard/auth/*`, dashboard-sign-in.ts)
 * and reads everything through the admin API, which checks it on every request.
 */
export function dashboardRoutes(enabled: () => boolean, signIn: SignInDeps): Hono<HttpEnv> {
  const dashboard = new Hono<HttpEnv>();
  dashboard.use("/*", async (c, next) => {
    if (!enabled()) return c.notFound();
    await next();
  });
  dashboard.route("/auth", signInRoutes(signIn));
  dashboard.get("/*", (c) => {
    const path = c.req.path.slice("/dashboard".length) || "/";
    const asset = ASSETS.get(path);
    if (asset === undefined) return c.notFound();
    return new Response(asset[1], { headers: { ...DASHBOARD_HEADERS, "content-type": asset[0] } });
  });
  return dashboard;
}
