import { Hono } from "hono";
import { z } from "zod";
import type { BudgetChange, BudgetMode, NewBudget, StoredBudget } from "../../budgets/budget-definition.ts";
import { budgetSchema } from "../../config/config-schema.ts";
import type { BudgetAdmin } from "../../budgets/budget-admin.ts";
import { RelayError } from "../../shared/relay-error.ts";
import type { HttpEnv } from "../app.ts";
import { adminActor, requireRole } from "./admin-auth.ts";
import { adminJsonBody } from "./admin-body.ts";
import { issueParts, nameText } from "../../config/schema-text.ts";
import type { OverrideAdmin, OverrideRequest } from "../../budgets/budget-override-admin.ts";
import type { BudgetOverride } from "../../budgets/budget-store.ts";
import { checkedText, TEXT_BOUNDS } from "../../shared/input-text.ts";

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
  const created: NewBudget = { id: budget.id, scope: budget.scope, period: budget.period, limit: budget.limit, mode: budget.mode ?? defaultMode, paused: budget.paused };
  if (budget.onExceeded !== undefined) created.onExceeded = budget.onExceeded;
  return created;
}

/** A change from a request body; RelayError 400 `invalid_request` naming the field. */
export function parseBudgetChange(body: unknown): BudgetChange {
  return parseBody(budgetChangeBody, body) as BudgetChange;
}

/** The body of `POST /admin/budgets/{id}/override`: the limit, its end (ISO 8601 time or epoch ms) and, for a per-end-user budget, the end user. */
export const overrideBody = z.strictObject({
  limit: budgetSchema.shape.limit,
  until: z.union([z.number().int().positive(), z.iso.datetime({ offset: true }).transform((text) => Date.parse(text))]),
  endUser: nameText().optional(),
});

/** An override as the admin API answers it. */
export function overrideObject(override: BudgetOverride): Record<string, unknown> {
  return { object: "budget.override", ...override, untilIso: new Date(override.until).toISOString() };
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
export function createAdminBudgetRoutes(admin: BudgetAdmin, defaultMode: () => BudgetMode, overrides?: OverrideAdmin): Hono<HttpEnv> {
  const routes = new Hono<HttpEnv>();
  routes.get("/", requireRole("read"), async (c) => c.json({ object: "list", data: await admin.list() }));
  if (overrides !== undefined) {
    // Overrides: a limit for a bounded window, ending by itself (budget-override-admin.ts).
    routes.get("/overrides", requireRole("read"), async (c) => c.json({ object: "list", data: (await overrides.list()).map(overrideObject) }));
    routes.post("/:id/override", requireRole("budgets"), async (c) => {
      const body = parseBody(overrideBody, await adminJsonBody(c));
      const request: OverrideRequest = { budgetId: c.req.param("id"), limit: body.limit, until: body.until };
      if (body.endUser !== undefined) request.endUser = body.endUser;
      return c.json(overrideObject(await overrides.set(request, adminActor(c).id)), 201);
    });
    routes.delete("/:id/override", requireRole("budgets"), async (c) => {
      const endUser = c.req.query("endUser");
      return c.json({ ...overrideObject(await overrides.end(c.req.param("id"), endUser === undefined ? undefined : checkedText("Query parameter `endUser`", endUser, TEXT_BOUNDS.name), adminActor(c).id)), ended: true });
    });
  }
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
