import { Hono } from "hono";
import uplotCss from "uplot/dist/uPlot.min.css" with { type: "text" };
import uplotJs from "uplot/dist/uPlot.iife.min.js" with { type: "text" };
import css from "./dashboard.css" with { type: "text" };
import js from "./dashboard.js" with { type: "text" };
import spendersJs from "./dashboard-spenders.js" with { type: "text" };
import html from "./index.html" with { type: "text" };
import type { HttpEnv } from "../app.ts";

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

/** Path → [content type, body]: the page, its script and style, and uPlot, embedded in the executable as text imports. */
const ASSETS: ReadonlyMap<string, readonly [string, string]> = new Map([
  // String(): Bun's types call an .html import an HTML bundle; `type: "text"` makes it the file's text.
  ["/", ["text/html; charset=utf-8", String(html)]],
  ["/dashboard.js", ["text/javascript; charset=utf-8", js]],
  ["/dashboard-spenders.js", ["text/javascript; charset=utf-8", spendersJs]],
  ["/dashboard.css", ["text/css; charset=utf-8", css]],
  ["/uplot.js", ["text/javascript; charset=utf-8", uplotJs]],
  ["/uplot.css", ["text/css; charset=utf-8", uplotCss]],
]);

/**
 * The dashboard, mounted at /dashboard on the listener serving the admin API; like the admin
 * routes it exists only while admin tokens are configured (`enabled`, read per request, so a
 * reload changes it). The assets are public (they hold no data); the page signs in with an
 * admin token and reads everything through the admin API, which checks it on every request.
 */
export function dashboardRoutes(enabled: () => boolean): Hono<HttpEnv> {
  const dashboard = new Hono<HttpEnv>();
  dashboard.get("/*", (c) => {
    if (!enabled()) return c.notFound();
    const path = c.req.path.slice("/dashboard".length) || "/";
    const asset = ASSETS.get(path);
    if (asset === undefined) return c.notFound();
    return new Response(asset[1], { headers: { ...DASHBOARD_HEADERS, "content-type": asset[0] } });
  });
  return dashboard;
}
