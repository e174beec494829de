import { Hono } from "hono";
import type { AuditStore } from "../../shared/audit.ts";
import type { HttpEnv } from "../app.ts";
import { limitParam, timeParam } from "./admin-query.ts";
import { requireRole } from "./admin-auth.ts";

/** `GET /admin/audit`: admin actions, newest first, cursor-paginated, filtered by time, actor, action, target. */
export function createAdminAuditRoutes(store: Pick<AuditStore, "listAudit">): Hono<HttpEnv> {
  const routes = new Hono<HttpEnv>();
  routes.get("/audit", requireRole("read"), async (c) => {
    const limit = limitParam(c.req.query("limit"), 100, 1000);
    const page = await store.listAudit({
      since: timeParam(c.req.query("since"), "since"),
      until: timeParam(c.req.query("until"), "until"),
      actor: c.req.query("actor"),
      action: c.req.query("action"),
      target: c.req.query("target"),
      cursor: c.req.query("cursor"),
      limit,
    });
    return c.json({ object: "list", data: page.events, next_cursor: page.nextCursor });
  });
  return routes;
}
