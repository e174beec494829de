import { Hono } from "hono";
import { RelayError } from "../../shared/relay-error.ts";
import type { AlertOutbox, AlertStatus } from "../../alerts/alert-outbox.ts";
import { requireRole } from "./admin-auth.ts";
import { limitParam } from "./admin-query.ts";
import type { HttpEnv } from "../app.ts";

const STATUSES: readonly AlertStatus[] = ["pending", "delivered", "failed"];
const MAX_PAGE = 1000;

/**
 * `GET /admin/alerts` (role read): the alert outbox, newest first, with each event's status,
 * attempts and last error; `?status=pending|delivered|failed`, `?limit=` (default 100).
 * `sync` first applies what the relay has logged, so a threshold just reached is listed.
 */
export function alertRoutes(store: Pick<AlertOutbox, "listAlerts">, sync?: () => Promise<void>): Hono<HttpEnv> {
  const routes = new Hono<HttpEnv>();
  routes.get("/", requireRole("read"), async (c) => {
    const status = c.req.query("status");
    if (status !== undefined && !STATUSES.includes(status as AlertStatus)) {
      throw new RelayError(400, "invalid_request", `\`status\` must be one of ${STATUSES.join(", ")}`);
    }
    const limit = limitParam(c.req.query("limit"), 100, MAX_PAGE);
    await sync?.();
    const data = await store.listAlerts({ status: status as AlertStatus | undefined, limit });
    return c.json({ object: "list", data });
  });
  return routes;
}
