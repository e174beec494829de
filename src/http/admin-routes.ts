import { timingSafeEqual } from "node:crypto";
import { Hono } from "hono";
import { configuredUsage } from "../budget/budget-usage.ts";
import { REPORT_BY, REPORT_PERIODS, spendReport, type ReportBy, type ReportPeriod } from "../budget/spend-report.ts";
import type { BudgetConfig } from "../config/config-schema.ts";
import { RelayError } from "../shared/relay-error.ts";
import type { JournalReader } from "../storage/store.ts";
import type { HttpEnv } from "./app.ts";

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
  /** The config's `budget.currency`, named by the report. */
  readonly currency: string;
}

const MAX_PAGE = 1000;

/**
 * `GET /admin/journal` (cursor pagination, filters), `GET /admin/budgets` (every stored
 * period row, plus each configured budget's current period when it has no row yet) and
 * `GET /admin/report` (the reconciliation report of `renio budget report`), behind the admin
 * token.
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

  admin.get("/report", async (c) => {
    const by = oneOf(c.req.query("by"), REPORT_BY, "key", "by");
    const period = oneOf(c.req.query("period"), REPORT_PERIODS, "month", "period");
    const since = timeParam(c.req.query("since"), "since");
    const until = timeParam(c.req.query("until"), "until");
    await deps.sync?.();
    const spend = await deps.store.journalSpend({ since, until });
    const stored = by === "budget" ? await deps.store.budgetUsage() : [];
    const report = spendReport({ by: by as ReportBy, period: period as ReportPeriod, since, until }, spend, deps.budgets, stored, deps.currency);
    return c.json({ object: "report", ...report });
  });

  return admin;
}

/** A query value from a fixed set (absent: `fallback`); anything else is a 400 naming the choices. */
function oneOf(value: string | undefined, allowed: readonly string[], fallback: string, name: string): string {
  if (value === undefined) return fallback;
  if (!allowed.includes(value)) throw new RelayError(400, "invalid_request", `\`${name}\` must be one of ${allowed.join(", ")}`);
  return value;
}

/** Epoch ms from an ISO time or epoch-ms query value. */
function timeParam(value: string | undefined, name: string): number | undefined {
  if (value === undefined) return undefined;
  const ms = /^\d+$/.test(value) ? Number(value) : Date.parse(value);
  if (Number.isNaN(ms)) throw new RelayError(400, "invalid_request", `\`${name}\` must be an ISO 8601 time or epoch milliseconds`);
  return ms;
}
