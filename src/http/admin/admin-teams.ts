import { Hono } from "hono";
import { teamSchema } from "../../config/attribution-schema.ts";
import type { TeamAdmin } from "../../budgets/team-admin.ts";
import { issueParts } from "../../config/schema-text.ts";
import { RelayError } from "../../shared/relay-error.ts";
import type { HttpEnv } from "../app.ts";
import { adminActor, requireRole } from "./admin-auth.ts";
import { adminJsonBody } from "./admin-body.ts";

/**
 * `/admin/teams`: `GET` lists the teams in force (role read); `POST` creates one (role budgets;
 * 409 when its id or one of its projects is taken); `DELETE /{id}` deletes a stored team. A
 * change is in force on this relay before it is answered, on the others within `budget.storePollMs`.
 */
export function createAdminTeamRoutes(teams: TeamAdmin): Hono<HttpEnv> {
  const routes = new Hono<HttpEnv>();
  routes.get("/", requireRole("read"), (c) => c.json({ object: "list", data: teams.list().map((team) => ({ object: "team", ...team })) }));
  routes.post("/", requireRole("budgets"), async (c) => {
    const parsed = teamSchema.safeParse(await adminJsonBody(c));
    if (!parsed.success) {
      const { path, message } = issueParts(parsed.error.issues[0]!);
      throw new RelayError(400, "invalid_request", `Invalid team: ${path === "" ? "" : `\`${path}\`: `}${message}`);
    }
    return c.json({ object: "team", source: "store", ...(await teams.create(parsed.data, adminActor(c).id)) }, 201);
  });
  routes.delete("/:id", requireRole("budgets"), async (c) => c.json({ object: "team", source: "store", ...(await teams.remove(c.req.param("id"), adminActor(c).id)), deleted: true }));
  return routes;
}
