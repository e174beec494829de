import { Hono, type Context } from "hono";
import { z } from "zod";
import type { KeyAdmin } from "../../keys/key-admin.ts";
import { RelayError } from "../../shared/relay-error.ts";
import type { HttpEnv } from "../app.ts";
import { requireRole } from "./admin-auth.ts";
import { issueParts, jsonText, nameText } from "../../config/schema-text.ts";
import { TEXT_BOUNDS } from "../../shared/input-text.ts";
import { adminJsonBody } from "./admin-body.ts";

/** What `/admin/keys` works with. */
export interface AdminKeysDeps {
  readonly keys: KeyAdmin;
  /** The acting admin, recorded in the audit: the admin token's id, or `oidc:<email>` for a signed-in person. */
  readonly actorOf: (c: Context<HttpEnv>) => string;
}

/** Ids of stored keys: what journal filters and URLs carry without escaping. */
const keyId = z.string().regex(/^[A-Za-z0-9._:-]{1,64}$/, "must be 1-64 characters from A-Z a-z 0-9 . _ : -");
const names = z.array(nameText(128)).min(1).max(1000);
const futureTime = z.iso.datetime({ offset: true }).transform((text, ctx) => {
  const ms = Date.parse(text);
  if (ms <= Date.now()) ctx.addIssue({ code: "custom", message: "must be in the future" });
  return ms;
});
const metadata = z
  .record(nameText(128), jsonText(TEXT_BOUNDS.queryValue))
  .refine((value) => JSON.stringify(value).length <= 4096, "must be at most 4096 bytes of JSON");

const createBody = z.strictObject({
  id: keyId.optional(),
  project: nameText(128).default("default"),
  models: names.default(["*"]),
  regions: names.nullable().default(null),
  expiresAt: futureTime.nullable().default(null),
  metadata: metadata.default({}),
});
const patchBody = z
  .strictObject({
    project: nameText(128).optional(),
    models: names.optional(),
    regions: names.nullable().optional(),
    expiresAt: futureTime.nullable().optional(),
    metadata: metadata.optional(),
  })
  .refine((body) => Object.keys(body).length > 0, "give at least one of project, models, regions, expiresAt, metadata");
/** At most 30 days: a longer overlap is two keys, not a rotation. */
const rotateBody = z.strictObject({ graceSeconds: z.number().int().min(0).max(30 * 24 * 3600).default(0) });
const listQuery = z.strictObject({
  project: nameText().optional(),
  status: z.enum(["active", "expired", "revoked"]).optional(),
  source: z.enum(["store", "config"]).optional(),
});
const idempotencyKey = z.string().regex(/^[\x21-\x7e]{1,255}$/, "must be 1-255 visible ASCII characters");

/** A `POST /admin/keys` body, validated (400 `invalid_request` naming the field). Also what `renio keys create --config` checks. */
export const createKeyBody = (body: unknown) => parse(createBody, body);
/** The filters of `GET /admin/keys`, validated. */
export const keyListQuery = (query: unknown) => parse(listQuery, query);
/** A `PATCH /admin/keys/{id}` body, validated. */
export const keyChangeBody = (body: unknown) => parse(patchBody, body);
/** A `POST /admin/keys/{id}/rotate` body, validated. */
export const rotateKeyBody = (body: unknown) => parse(rotateBody, body);

/**
 * `/admin/keys` (reads need role read, changes role keys): create (the secret answered once), list, show, change, rotate, revoke; create
 * and rotate are idempotent on `Idempotency-Key`. Answers carrying a secret are `cache-control: no-store`.
 */
export function createAdminKeyRoutes(deps: AdminKeysDeps): Hono<HttpEnv> {
  const routes = new Hono<HttpEnv>();
  const { keys } = deps;

  routes.get("/keys", requireRole("read"), async (c) => c.json({ object: "list", data: await keys.list(keyListQuery(c.req.query())) }));
  routes.get("/keys/:id", requireRole("read"), async (c) => c.json(await keys.get(c.req.param("id"))));
  routes.post("/keys", requireRole("keys"), async (c) => {
    const input = createKeyBody(await adminJsonBody(c));
    const issued = await keys.create(input, deps.actorOf(c), idempotencyKeyOf(c));
    return c.json({ key: issued.key, secret: issued.secret }, 201, issuedHeaders(issued.replayed));
  });
  routes.patch("/keys/:id", requireRole("keys"), async (c) => c.json(await keys.update(c.req.param("id"), keyChangeBody(await adminJsonBody(c)), deps.actorOf(c))));
  routes.post("/keys/:id/rotate", requireRole("keys"), async (c) => {
    const body = rotateKeyBody(await adminJsonBody(c, {}));
    const rotated = await keys.rotate(c.req.param("id"), { graceSeconds: body.graceSeconds, idempotencyKey: idempotencyKeyOf(c) }, deps.actorOf(c));
    return c.json({ key: rotated.key, secret: rotated.secret }, 200, issuedHeaders(rotated.replayed));
  });
  routes.delete("/keys/:id", requireRole("keys"), async (c) => c.json(await keys.revoke(c.req.param("id"), deps.actorOf(c))));
  return routes;
}

/** The request's `Idempotency-Key` header, validated. */
function idempotencyKeyOf(c: Context<HttpEnv>): string | undefined {
  const header = c.req.header("idempotency-key");
  return header === undefined ? undefined : parse(idempotencyKey, header, "Idempotency-Key");
}

/** Headers of an answer carrying a secret: never cached; `idempotent-replayed` on a replay. */
function issuedHeaders(replayed: boolean): Record<string, string> {
  return replayed ? { "cache-control": "no-store", "idempotent-replayed": "true" } : { "cache-control": "no-store" };
}

/** Validates with zod; 400 naming the first problem's field (`models.1: …`, `unknown field "x"`). */
function parse<S extends z.ZodType>(schema: S, value: unknown, name?: string): z.output<S> {
  const result = schema.safeParse(value);
  if (result.success) return result.data;
  const { path, message } = issueParts(result.error.issues[0]!, name === undefined ? [] : [name]);
  throw new RelayError(400, "invalid_request", path === "" ? message : `${path}: ${message}`);
}
