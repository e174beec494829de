import { createHash, timingSafeEqual } from "node:crypto";
import type { Context, MiddlewareHandler } from "hono";
import type { AdminRole, Config } from "../../config/config-schema.ts";
import { LEGACY_ADMIN_TOKEN_ID } from "../../config/config-semantics.ts";
import { RelayError } from "../../shared/relay-error.ts";
import type { HttpEnv } from "../app.ts";
import { cookieValue, csrfMatches, type AdminSessions } from "./admin-sessions.ts";

/** Methods that change nothing: a session calls them without its CSRF token. */
const SAFE_METHODS: ReadonlySet<string> = new Set(["GET", "HEAD", "OPTIONS"]);
/** The header a session's state-changing call carries its CSRF token in. */
export const CSRF_HEADER = "x-renio-csrf";

/** A configured admin token: only the sha256 of its secret is kept. */
export interface AdminToken {
  readonly id: string;
  readonly hash: Buffer;
  readonly roles: ReadonlySet<AdminRole>;
}

/** Who is calling an admin route: the token's id (never its secret) or `oidc:<email>`, and roles. */
export interface AdminActor {
  readonly id: string;
  readonly roles: ReadonlySet<AdminRole>;
}

/** The admin tokens of a config: `server.admin.tokens`, plus `server.adminToken` as id `admin` with role `admin`. */
export function adminTokensOf(server: Config["server"]): AdminToken[] {
  const tokens = server.admin.tokens.map(({ id, secret, roles }) => ({ id, hash: secretHash(secret), roles: new Set(roles) }));
  if (server.adminToken !== undefined) tokens.push({ id: LEGACY_ADMIN_TOKEN_ID, hash: secretHash(server.adminToken), roles: new Set(["admin"]) });
  return tokens;
}

function secretHash(secret: string): Buffer {
  return /^sha256:[0-9a-f]{64}$/.test(secret) ? Buffer.from(secret.slice("sha256:".length), "hex") : sha256(secret);
}

function sha256(text: string): Buffer {
  return createHash("sha256").update(text).digest();
}

/**
 * Authenticates every admin request against the current tokens (read per request, so a
 * reload changes them): the presented Bearer token's sha256 is compared with every
 * configured hash by crypto.timingSafeEqual (all of them, whichever matches), so neither the
 * comparison nor the position of the match shows in the timing. Without an `Authorization`
 * header, a dashboard session's cookie (sign-in with an identity provider) is accepted; its
 * state-changing calls must carry the session's CSRF token in `x-renio-csrf` (403
 * `csrf_failed`). No tokens and no sign-in configured: the admin routes do not exist (404).
 * Wrong or missing credentials: 401. The actor is then available to the route through
 * {@link adminActor}.
 */
export function adminAuth(tokens: () => readonly AdminToken[], sessions?: AdminSessions): MiddlewareHandler<HttpEnv> {
  return async (c, next) => {
    const configured = tokens();
    if (configured.length === 0 && sessions === undefined) throw new RelayError(404, "route_not_found", `No route for ${c.req.method} ${c.req.path}`);
    const authorization = c.req.header("authorization");
    const sessionId = authorization === undefined && sessions !== undefined ? cookieValue(c.req.header("cookie"), sessions.cookieName) : undefined;
    if (sessionId !== undefined) {
      const session = sessions!.get(sessionId);
      if (session === undefined) throw new RelayError(401, "unauthorized", "The dashboard session has ended; sign in again");
      if (!SAFE_METHODS.has(c.req.method) && !csrfMatches(session, c.req.header(CSRF_HEADER))) {
        throw new RelayError(403, "csrf_failed", `A signed-in session's ${c.req.method} needs its CSRF token in the \`${CSRF_HEADER}\` header (GET /dashboard/auth/session answers it)`);
      }
      c.set("adminActor", session.actor);
      return next();
    }
    const presented = /^Bearer\s+(\S+)\s*$/i.exec(authorization ?? "")?.[1];
    const match = presented === undefined ? undefined : matchAdminToken(configured, presented);
    if (match === undefined) throw new RelayError(401, "unauthorized", "Admin routes need `Authorization: Bearer <admin token>` or a dashboard session");
    c.set("adminActor", { id: match.id, roles: match.roles });
    await next();
  };
}

/** Byte comparison of two equal-length buffers whose time does not depend on their contents. */
export type ConstantTimeEqual = (a: Buffer, b: Buffer) => boolean;

/**
 * The token whose hash equals the presented secret's sha256, comparing it with every configured
 * hash (equal lengths: 32 bytes) by `equal` (crypto.timingSafeEqual), never stopping early.
 */
export function matchAdminToken(tokens: readonly AdminToken[], presented: string, equal: ConstantTimeEqual = timingSafeEqual): AdminToken | undefined {
  const hash = sha256(presented);
  let match: AdminToken | undefined;
  for (const token of tokens) {
    if (equal(hash, token.hash)) match = token;
  }
  return match;
}

/**
 * Lets the request through only when its admin token has `role` (`admin` has every role;
 * every role can `read`); otherwise 403. One line per route:
 * `admin.post("/keys", requireRole("keys"), handler)`.
 */
export function requireRole(role: AdminRole): MiddlewareHandler<HttpEnv> {
  return async (c, next) => {
    const actor = adminActor(c);
    if (!(role === "read" || actor.roles.has(role) || actor.roles.has("admin"))) {
      throw new RelayError(403, "forbidden", `\`${actor.id}\` lacks the role \`${role}\` this route needs`);
    }
    await next();
  };
}

/** The admin token behind this request (set by {@link adminAuth}); for the audit's "who". */
export function adminActor(c: Context<HttpEnv>): AdminActor {
  const actor = c.get("adminActor");
  if (actor === undefined) throw new Error("adminActor() called outside the admin routes");
  return actor;
}
