import { Hono } from "hono";
import { configuredUsage } from "../budget/budget-usage.ts";
import type { Config } from "../config/config-schema.ts";
import { RelayError } from "../shared/relay-error.ts";
import type { JournalReader } from "../storage/store.ts";
import { adminAuth, requireRole, type AdminToken } from "./admin-auth.ts";
import { dashboardApi } from "./admin-dashboard-api.ts";
import { timeParam } from "./admin-query.ts";
import { reloadHandler, type Reload } from "./admin-reload.ts";
import type { HttpEnv } from "./app.ts";

/** What the admin API reads. */
export interface AdminDeps {
  /** The current admin tokens (none: every admin route answers 404). */
  readonly tokens: () => readonly AdminToken[];
  /** The running config (its budgets and `budget.mode`). */
  readonly config: () => Config;
  /** The journal (none with `journal.enabled: false`: no journal or budget routes). */
  readonly store: JournalReader | undefined;
  /** Brings the store up to date with the relay's journal before a read (applies logged records). */
  readonly sync?: () => Promise<void>;
  /** Re-reads the config file (absent without one). */
  readonly reload?: Reload;
}

const MAX_PAGE = 1000;

/**
 * The admin API, behind the admin tokens (admin-auth.ts); every route names the role it needs
 * with `requireRole`: `POST /admin/reload` (admin), `GET /admin/journal` (cursor pagination,
 * filters) and `GET /admin/budgets` (every stored period row, plus each configured budget's
 * current period when it has no row yet), both read, and the dashboard's aggregates under
 * `/admin/dashboard/*` (admin-dashboard-api.ts).
 */
export function createAdminRoutes(deps: AdminDeps): Hono<HttpEnv> {
  const admin = new Hono<HttpEnv>();
  admin.use(adminAuth(deps.tokens));

  admin.post("/reload", requireRole("admin"), reloadHandler(deps.reload));

  const store = deps.store;
  if (store === undefined) return admin;

  admin.get("/journal", requireRole("read"), async (c) => {
    const limit = c.req.query("limit") === undefined ? 100 : Number(c.req.query("limit"));
    if (!Number.isInteger(limit) || limit < 1 || limit > MAX_PAGE) {
      throw new RelayError(400, "invalid_request", `\`limit\` must be an integer from 1 to ${MAX_PAGE}`);
    }
    await deps.sync?.();
    const page = await store.listJournal({
      since: timeParam(c.req.query("since"), "since"),
      until: timeParam(c.req.query("until"), "until"),
      keyId: c.req.query("key"),
      requestId: c.req.query("request_id"),
      outcome: c.req.query("outcome"),
      cursor: c.req.query("cursor"),
      limit,
    });
    return c.json({ object: "list", data: page.entries, next_cursor: page.nextCursor });
  });

  admin.get("/budgets", requireRole("read"), async (c) => {
    await deps.sync?.();
    const usage = await store.budgetUsage();
    const { budgets, budget: { mode: defaultMode } } = deps.config();
    const configured = new Map(budgets.map((budget) => [budget.id, budget]));
    // A budget no longer in the config has neither scope nor mode: null.
    const data = usage.map((row) => {
      const budget = configured.get(row.budgetId);
      return { ...row, scope: budget?.scope ?? null, mode: budget === undefined ? null : (budget.mode ?? defaultMode) };
    });
    // Configured budgets not charged in their current period yet: zero usage, as `renio budget status` shows them.
    for (const { budget, usage: zero, stored } of configuredUsage(budgets, usage, new Date())) {
      if (!stored) data.push({ ...zero, scope: budget.scope, mode: budget.mode ?? defaultMode });
    }
    return c.json({ object: "list", data });
  });

  admin.route("/dashboard", dashboardApi(store, deps.sync));

  return admin;
}
