import { spenderRoutes } from "./admin-spenders.ts";
import type { OverrideAdmin } from "../../budgets/budget-override-admin.ts";
import { createAdminTeamRoutes } from "./admin-teams.ts";
import type { TeamAdmin } from "../../budgets/team-admin.ts";
import { Hono } from "hono";
import { REPORT_BY, REPORT_PERIODS, spendReport, type ReportBy, type ReportPeriod } from "../../budgets/spend-report.ts";
import type { Config } from "../../config/config-schema.ts";
import { RelayError } from "../../shared/relay-error.ts";
import type { AlertOutbox } from "../../alerts/alert-outbox.ts";
import { alertRoutes } from "./admin-alerts.ts";
import { adminAuth, requireRole, type AdminToken } from "./admin-auth.ts";
import { dashboardApi } from "./admin-dashboard-api.ts";
import type { AdminSessions } from "./admin-sessions.ts";
import { limitParam, timeParam } from "./admin-query.ts";
import { reloadHandler, type Reload } from "./admin-reload.ts";
import type { BudgetAdmin } from "../../budgets/budget-admin.ts";
import { createAdminBudgetRoutes } from "./admin-budgets.ts";
import { budgetStatus } from "../../budgets/budget-status.ts";
import { budgetsInForce } from "../../budgets/budget-usage.ts";
import type { BudgetDefinitionStore } from "../../budgets/budget-store.ts";
import type { HttpEnv } from "../app.ts";
import { createAdminKeyRoutes, type AdminKeysDeps } from "./admin-keys.ts";
import { createAdminAuditRoutes } from "./admin-audit.ts";
import { createAdminBooksRoutes } from "./admin-books.ts";
import type { TargetStatus } from "../../routing/target-status.ts";
import type { JournalReader, QuarantineStore, BooksReader } from "../../journal/journal-store.ts";
import type { AuditStore } from "../../shared/audit.ts";

/** What the admin API reads. */
export interface AdminDeps {
  /** The current admin tokens (none: every admin route answers 404). */
  readonly tokens: () => readonly AdminToken[];
  /** Dashboard sessions of sign-in with an identity provider (absent: admin tokens only). */
  readonly sessions?: AdminSessions | undefined;
  /** The running config (its budgets and `budget.mode`). */
  readonly config: () => Config;
  /** The journal (none with `journal.enabled: false`: no journal or budget routes). */
  readonly store: (JournalReader & BooksReader & Pick<QuarantineStore, "listQuarantine"> & Pick<AlertOutbox, "listAlerts"> & Pick<BudgetDefinitionStore, "listBudgets">) | undefined;
  /** Brings the store up to date with the relay's journal before a read (applies logged records). */
  readonly sync?: () => Promise<void>;
  /** Re-reads the config file (absent without one). */
  readonly reload?: Reload;
  /** Budgets of the config and the store (`/admin/budgets`). */
  readonly budgetAdmin: BudgetAdmin | undefined;
  /** Budget overrides (absent without a store). */
  readonly overrides?: OverrideAdmin | undefined;
  /** The team of a project, as the teams in force say. */
  readonly teamOf?: (project: string) => string | null;
  /** Teams: the config's and the store's (absent without a store). */
  readonly teams?: TeamAdmin | undefined;
  /** Keys in the store (`/admin/keys`, see admin-keys.ts). */
  readonly keys?: AdminKeysDeps;
  /** The admin audit (`GET /admin/audit`). */
  readonly audit?: Pick<AuditStore, "listAudit">;
  /** Every target's circuit (`GET /admin/targets`). */
  readonly targets?: () => readonly TargetStatus[];
}

const MAX_PAGE = 1000;

/**
 * The admin API, behind the admin tokens (admin-auth.ts); every route names the role it needs
 * with `requireRole`: `POST /admin/reload` (admin), `GET /admin/journal` (cursor pagination,
 * filters) (read), `/admin/budgets` (admin-budgets.ts: reads need read, changes budgets),
 * `GET /admin/budgets/status` (every budget in force in its current period; read),
 * `GET /admin/report` (the reconciliation report of `renio budget report`; read), and with a
 * store `/admin/keys` (admin-keys.ts), `/admin/audit`, `/admin/alerts`, `/admin/books` and
 * `/admin/quarantine` (admin-books.ts) and the dashboard's aggregates under `/admin/dashboard/*`
 * (admin-dashboard-api.ts).
 */
export function createAdminRoutes(deps: AdminDeps): Hono<HttpEnv> {
  const admin = new Hono<HttpEnv>();
  admin.use(adminAuth(deps.tokens, deps.sessions));

  admin.post("/reload", requireRole("admin"), reloadHandler(deps.reload));
  const targets = deps.targets;
  if (targets) admin.get("/targets", requireRole("read"), (c) => c.json({ object: "list", data: targets().map(targetJson) }));

  const store = deps.store;
  if (store === undefined) return admin;

  admin.get("/journal", requireRole("read"), async (c) => {
    const limit = limitParam(c.req.query("limit"), 100, MAX_PAGE);
    await deps.sync?.();
    const page = await store.listJournal({
      since: timeParam(c.req.query("since"), "since"),
      until: timeParam(c.req.query("until"), "until"),
      keyId: c.req.query("key"),
      requestId: c.req.query("request_id"),
      outcome: c.req.query("outcome"),
      guardrails: flagParam(c.req.query("guardrails"), "guardrails"),
      cursor: c.req.query("cursor"),
      limit,
    });
    return c.json({ object: "list", data: page.entries, next_cursor: page.nextCursor });
  });

  admin.get("/journal/:id", requireRole("read"), async (c) => {
    await deps.sync?.();
    const [entry] = (await store.listJournal({ id: c.req.param("id"), limit: 1 })).entries;
    if (entry === undefined) throw new RelayError(404, "entry_not_found", `No journal entry has the id \`${c.req.param("id")}\``);
    return c.json({ object: "journal.entry", ...entry });
  });

  const inForce = async () => budgetsInForce(deps.config().budgets, await store.listBudgets());
  admin.get("/budgets/status", requireRole("read"), async (c) => {
    await deps.sync?.();
    return c.json({ object: "list", data: await budgetStatus(store, await inForce(), deps.config().budget.mode, new Date()) });
  });
  if (deps.budgetAdmin) admin.route("/budgets", createAdminBudgetRoutes(deps.budgetAdmin, () => deps.config().budget.mode, deps.overrides));
  if (deps.teams) admin.route("/teams", createAdminTeamRoutes(deps.teams));

  admin.get("/report", requireRole("read"), async (c) => {
    const by = oneOf(c.req.query("by"), REPORT_BY, "key", "by");
    const period = oneOf(c.req.query("period"), REPORT_PERIODS, "month", "period");
    const since = timeParam(c.req.query("since"), "since");
    const until = timeParam(c.req.query("until"), "until");
    await deps.sync?.();
    // By budget: grouped by team too, for team budgets.
    const spend = await store.journalSpend({ since, until, ...(by === "end-user" || by === "team" || by === "tag" ? { by } : by === "budget" ? { by: "team" as const } : {}) });
    const stored = by === "budget" ? await store.budgetUsage() : [];
    const report = spendReport({ by: by as ReportBy, period: period as ReportPeriod, since, until }, spend, by === "budget" ? await inForce() : [], stored, deps.config().budget.currency);
    return c.json({ object: "report", ...report });
  });


  if (deps.keys) admin.route("/", createAdminKeyRoutes(deps.keys));
  if (deps.audit) admin.route("/", createAdminAuditRoutes(deps.audit));
  admin.route("/alerts", alertRoutes(store, deps.sync));
  admin.route("/", createAdminBooksRoutes(store, deps.sync));
  admin.route("/dashboard", dashboardApi(store, deps.sync, () => deps.config().budget.currency));
  admin.route("/spenders", spenderRoutes(store, inForce, deps.teamOf ?? (() => null), deps.sync));

  return admin;
}

/** A target's status with its times as ISO strings. */
function targetJson(target: TargetStatus): Record<string, unknown> {
  const iso = (at: number | null) => (at === null ? null : new Date(at).toISOString());
  return { ...target, cooldownUntil: iso(target.cooldownUntil), lastFailureAt: iso(target.lastFailureAt) };
}

/** A yes/no query value: `1` or `true` (absent, `0` or `false`: no). */
function flagParam(value: string | undefined, name: string): boolean {
  if (value === undefined || value === "0" || value === "false") return false;
  if (value === "1" || value === "true") return true;
  throw new RelayError(400, "invalid_request", `\`${name}\` must be 1, true, 0 or false`);
}

/** A query value from a fixed set (absent: `fallback`); anything else is a 400 naming the choices. */
function oneOf(value: string | undefined, allowed: readonly string[], fallback: string, name: string): string {
  if (value === undefined) return fallback;
  if (!allowed.includes(value)) throw new RelayError(400, "invalid_request", `\`${name}\` must be one of ${allowed.join(", ")}`);
  return value;
}
