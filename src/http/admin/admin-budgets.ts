import { Hono } from "hono";
import { z } from "zod";
import type { BudgetChange, BudgetMode, NewBudget, StoredBudget } from "../../budgets/budget-definition.ts";
import { budgetSchema } from "../../config/config-schema.ts";
import type { BudgetAdmin } from "../../budgets/budget-admin.ts";
import { RelayError } from "../../shared/relay-error.ts";
import type { HttpEnv } from "../app.ts";
import { adminActor, requireRole } from "./admin-auth.ts";
import { adminJsonBody } from "./admin-body.ts";
import { issueParts } from "../../config/schema-text.ts";

/** The body of `POST /admin/budgets`: a config budget's fields (mode absent: the config's `budget.mode`), and `paused`. */
const newBudgetBody = budgetSchema.extend({ paused: z.boolean().default(false) });

/** The body of `PATCH /admin/budgets/{id}`: what may change, at least one of it. */
const budgetChangeBody = budgetSchema
  .pick({ limit: true, mode: true })
  .extend({ paused: z.boolean() })
  .partial()
  .refine((change) => Object.keys(change).length > 0, "give at least one of `limit`, `mode`, `paused`");

/** A new budget from a request body; RelayError 400 `invalid_request` naming the field. */
export function parseNewBudget(body: unknown, defaultMode: BudgetMode): NewBudget {
  const budget = parseBody(newBudgetBody, body);
  return { id: budget.id, scope: budget.scope, period: budget.period, limit: budget.limit, mode: budget.mode ?? defaultMode, paused: budget.paused };
}

/** A change from a request body; RelayError 400 `invalid_request` naming the field. */
export function parseBudgetChange(body: unknown): BudgetChange {
  return parseBody(budgetChangeBody, body) as BudgetChange;
}

/** A stored budget as the admin API answers it. */
export function budgetObject(budget: StoredBudget): Record<string, unknown> {
  return { object: "budget", source: "store", ...budget };
}

/**
 * `/admin/budgets` (behind the admin tokens, mounted by admin-routes.ts; `GET` needs role read, changes role budgets): `GET` lists every
 * budget period row (config and store budgets), `POST` creates a stored budget (201),
 * `PATCH /{id}` changes its limit, mode or pause, `DELETE /{id}` deletes it. A change is in
 * force on this relay before it is answered, and on the others within `budget.storePollMs`.
 */
export function createAdminBudgetRoutes(admin: BudgetAdmin, defaultMode: () => BudgetMode): Hono<HttpEnv> {
  const routes = new Hono<HttpEnv>();
  routes.get("/", requireRole("read"), async (c) => c.json({ object: "list", data: await admin.list() }));
  routes.post("/", requireRole("budgets"), async (c) => c.json(budgetObject(await admin.create(parseNewBudget(await adminJsonBody(c), defaultMode()), adminActor(c).id)), 201));
  routes.patch("/:id", requireRole("budgets"), async (c) => c.json(budgetObject(await admin.update(c.req.param("id"), parseBudgetChange(await adminJsonBody(c)), adminActor(c).id))));
  routes.delete("/:id", requireRole("budgets"), async (c) => c.json({ ...budgetObject(await admin.remove(c.req.param("id"), adminActor(c).id)), deleted: true }));
  return routes;
}

function parseBody<T>(schema: z.ZodType<T>, body: unknown): T {
  const parsed = schema.safeParse(body);
  if (parsed.success) return parsed.data;
  const { path, message } = issueParts(parsed.error.issues[0]!);
  throw new RelayError(400, "invalid_request", `Invalid budget: ${path === "" ? "" : `\`${path}\`: `}${message}`);
}
