import { timingSafeEqual } from "node:crypto";
import { Hono } from "hono";
import { configuredUsage } from "../budget/budget-usage.ts";
import type { BudgetConfig } from "../config/config-schema.ts";
import { RelayError } from "../shared/relay-error.ts";
import type { AuditStore, JournalReader } from "../storage/store.ts";
import type { HttpEnv } from "./app.ts";
import { createAdminKeyRoutes, type AdminKeysDeps } from "./admin-keys.ts";
import { createAdminAuditRoutes } from "./admin-audit.ts";
import { timeParam } from "./admin-query.ts";

/** What the admin API reads. */
export interface AdminDeps {
  readonly store: JournalReader;
  /** Brings the store up to date with the relay's journal before a read (applies logged records). */
  readonly sync?: () => Promise<void>;
  /** The admin token (from config); compared in constant time. */
  readonly token: string;
  readonly budgets: readonly BudgetConfig[];
  /** The config's `budget.mode`: the mode in effect for a budget without its own. */
  readonly defaultMode: NonNullable<BudgetConfig["mode"]>;
  /** Keys in the store (`/admin/keys`, see admin-keys.ts). */
  readonly keys?: AdminKeysDeps;
  /** The admin audit (`GET /admin/audit`). */
  readonly audit?: Pick<AuditStore, "listAudit">;
}

const MAX_PAGE = 1000;

/**
 * `GET /admin/journal` (cursor pagination, filters) and `GET /admin/budgets` (every stored
 * period row, plus each configured budget's current period when it has no row yet), with
 * `/admin/keys` and `/admin/audit` when given, behind the admin token.
 */
export function createAdminRoutes(deps: AdminDeps): Hono<HttpEnv> {
  const admin = new Hono<HttpEnv>();
  const expected = Buffer.from(deps.token);

  admin.use(async (c, next) => {
    const presented = /^Bearer\s+(\S+)$/i.exec(c.req.header("authorization") ?? "")?.[1];
    const given = Buffer.from(presented ?? "");
    if (given.length !== expected.length || !timingSafeEqual(given, expected)) {
      throw new RelayError(401, "unauthorized", "Admin routes need `Authorization: Bearer <admin token>`");
    }
    await next();
  });

  admin.get("/journal", async (c) => {
    const limit = c.req.query("limit") === undefined ? 100 : Number(c.req.query("limit"));
    if (!Number.isInteger(limit) || limit < 1 || limit > MAX_PAGE) {
      throw new RelayError(400, "invalid_request", `\`limit\` must be an integer from 1 to ${MAX_PAGE}`);
    }
    await deps.sync?.();
    const page = await deps.store.listJournal({
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

  admin.get("/budgets", async (c) => {
    await deps.sync?.();
    const usage = await deps.store.budgetUsage();
    const configured = new Map(deps.budgets.map((budget) => [budget.id, budget]));
    // A budget no longer in the config has neither scope nor mode: null.
    const data = usage.map((row) => {
      const budget = configured.get(row.budgetId);
      return { ...row, scope: budget?.scope ?? null, mode: budget === undefined ? null : (budget.mode ?? deps.defaultMode) };
    });
    // Configured budgets not charged in their current period yet: zero usage, as `renio budget status` shows them.
    for (const { budget, usage: zero, stored } of configuredUsage(deps.budgets, usage, new Date())) {
      if (!stored) data.push({ ...zero, scope: budget.scope, mode: budget.mode ?? deps.defaultMode });
    }
    return c.json({ object: "list", data });
  });

  if (deps.keys) admin.route("/", createAdminKeyRoutes(deps.keys));
  if (deps.audit) admin.route("/", createAdminAuditRoutes(deps.audit));

  return admin;
}
