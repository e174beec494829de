import { timingSafeEqual } from "node:crypto";
import { Hono } from "hono";
import type { BudgetMode } from "../budget/budget-definition.ts";
import type { BudgetAdmin } from "../relay/budget-admin.ts";
import { RelayError } from "../shared/relay-error.ts";
import type { JournalReader } from "../storage/store.ts";
import { createAdminBudgetRoutes } from "./admin-budgets.ts";
import type { HttpEnv } from "./app.ts";

/** What the admin API reads. */
export interface AdminDeps {
  readonly store: JournalReader;
  /** Brings the store up to date with the relay's journal before a read (applies logged records). */
  readonly sync?: () => Promise<void>;
  /** The admin token (from config); compared in constant time. */
  readonly token: string;
  /** Budgets of the config and the store (`/admin/budgets`). */
  readonly budgetAdmin: BudgetAdmin;
  /** The config's `budget.mode`: the mode of a budget created without one. */
  readonly defaultMode: BudgetMode;
}

const MAX_PAGE = 1000;

/**
 * `GET /admin/journal` (cursor pagination, filters) and `/admin/budgets` (admin-budgets.ts),
 * behind the admin token.
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

  admin.route("/budgets", createAdminBudgetRoutes(deps.budgetAdmin, deps.defaultMode));

  return admin;
}

/** Epoch ms from an ISO time or epoch-ms query value. */
function timeParam(value: string | undefined, name: string): number | undefined {
  if (value === undefined) return undefined;
  const ms = /^\d+$/.test(value) ? Number(value) : Date.parse(value);
  if (Number.isNaN(ms)) throw new RelayError(400, "invalid_request", `\`${name}\` must be an ISO 8601 time or epoch milliseconds`);
  return ms;
}
