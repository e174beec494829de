import { Hono, type Context } from "hono";
import type { AdminOidcConfig } from "../../config/admin-oidc-schema.ts";
import { RelayError } from "../../shared/relay-error.ts";
import type { HttpEnv } from "../app.ts";
import { matchAdminToken, type AdminActor, type AdminToken } from "../admin/admin-auth.ts";
import { cookieValue, createAdminSessions, csrfMatches, setCookie, type AdminSessions } from "../admin/admin-sessions.ts";
import { createOidcClient, type OidcAttempt, type OidcClient } from "../admin/oidc-client.ts";
import { actorOfClaims } from "../admin/oidc-roles.ts";

/** A sign-in has this long between the redirect to the provider and its answer. */
const ATTEMPT_TTL_MS = 10 * 60_000;
/** Sign-ins under way at once; past it the oldest is dropped. */
const MAX_ATTEMPTS = 1000;
/** The cookie binding a sign-in under way to the browser that started it (its state). */
const ATTEMPT_COOKIE = "renio_sign_in";
const AUTH_PATH = "/dashboard/auth";

/** Sign-in with an identity provider: its settings, the flow and the sessions it opens. */
export interface OidcSignIn {
  readonly config: AdminOidcConfig;
  readonly client: OidcClient;
  readonly sessions: AdminSessions;
}

/** Sign-in with the provider of `config`; sessions get `Secure` cookies when its redirect URL is https. */
export function createOidcSignIn(config: AdminOidcConfig): OidcSignIn {
  return { config, client: createOidcClient(config), sessions: createAdminSessions(new URL(config.redirectUrl).protocol === "https:") };
}

/** What the sign-in routes work with. */
export interface SignInDeps {
  readonly tokens: () => readonly AdminToken[];
  /** Absent: sign-in by admin token only. */
  readonly oidc?: OidcSignIn;
  readonly clock?: () => number;
}

/**
 * `/dashboard/auth/*`: `GET session` (who is signed in: by the Bearer token or the session
 * cookie, with the session's CSRF token; and whether identity-provider sign-in is offered),
 * `GET login` (to the provider, PKCE S256, state and nonce), `GET callback` (the provider's
 * answer: the ID token checked, roles mapped, an HttpOnly SameSite=Lax session cookie set),
 * `POST logout` (ends the session; needs its CSRF token).
 */
export function signInRoutes(deps: SignInDeps): Hono<HttpEnv> {
  const routes = new Hono<HttpEnv>();
  const clock = deps.clock ?? Date.now;
  const oidc = deps.oidc;
  // A Map keyed by the random state the provider hands back.
  const attempts = new Map<string, { attempt: OidcAttempt; expiresAt: number }>();

  routes.get("/session", (c) => {
    const base = { object: "session", oidc: oidc !== undefined };
    const bearer = /^Bearer\s+(\S+)\s*$/i.exec(c.req.header("authorization") ?? "")?.[1];
    const token = bearer === undefined ? undefined : matchAdminToken(deps.tokens(), bearer);
    if (token !== undefined) return c.json({ ...base, signedIn: true, method: "token", ...actorJson(token) }, 200, { "cache-control": "no-store" });
    const session = oidc && sessionOf(c, oidc.sessions);
    if (session === undefined) return c.json({ ...base, signedIn: false }, 200, { "cache-control": "no-store" });
    return c.json({ ...base, signedIn: true, method: "oidc", ...actorJson(session.actor), csrfToken: session.csrfToken, expiresAt: session.expiresAt }, 200, { "cache-control": "no-store" });
  });

  if (oidc === undefined) return routes;
  const { config, client, sessions } = oidc;

  routes.get("/login", async () => {
    let started: Awaited<ReturnType<OidcClient["start"]>>;
    try {
      started = await client.start();
    } catch (error) {
      return redirect(failedSignIn(error));
    }
    const { attempt, url } = started;
    const now = clock();
    for (const [state, pending] of attempts) if (pending.expiresAt <= now) attempts.delete(state);
    while (attempts.size >= MAX_ATTEMPTS) attempts.delete(attempts.keys().next().value!);
    attempts.set(attempt.state, { attempt, expiresAt: now + ATTEMPT_TTL_MS });
    return redirect(url, setCookie(ATTEMPT_COOKIE, attempt.state, { path: AUTH_PATH, maxAgeS: ATTEMPT_TTL_MS / 1000, secure: sessions.secure }));
  });

  routes.get("/callback", async (c) => {
    const clearAttempt = setCookie(ATTEMPT_COOKIE, "", { path: AUTH_PATH, maxAgeS: 0, secure: sessions.secure });
    try {
      const error = c.req.query("error");
      if (error !== undefined) throw new RelayError(403, "sign_in_failed", `The identity provider refused the sign-in (${error.slice(0, 100)})`);
      const state = c.req.query("state") ?? "";
      const pending = attempts.get(state);
      attempts.delete(state);
      // The state must be the one this browser was sent off with: a callback link made elsewhere signs no one in.
      if (pending === undefined || pending.expiresAt <= clock() || cookieValue(c.req.header("cookie"), ATTEMPT_COOKIE) !== state) {
        throw new RelayError(400, "sign_in_failed", "This sign-in is unknown, expired or was started in another browser; sign in again");
      }
      const code = c.req.query("code");
      if (code === undefined || code === "") throw new RelayError(400, "sign_in_failed", "The identity provider's answer has no code");
      const actor = actorOfClaims(await client.finish(code, pending.attempt), config);
      const { id } = sessions.create(actor, config.sessionTtlSeconds * 1000);
      const cookie = setCookie(sessions.cookieName, id, { path: "/", maxAgeS: config.sessionTtlSeconds, secure: sessions.secure });
      return redirect("/dashboard/", clearAttempt, cookie);
    } catch (error) {
      // Back to the page, which shows why (as text); the session cookie is not set.
      return redirect(failedSignIn(error), clearAttempt);
    }
  });

  routes.post("/logout", (c) => {
    const id = cookieValue(c.req.header("cookie"), sessions.cookieName);
    const session = id === undefined ? undefined : sessions.get(id);
    if (session !== undefined) {
      if (!csrfMatches(session, c.req.header("x-renio-csrf"))) {
        throw new RelayError(403, "csrf_failed", "Signing out needs the session's CSRF token in the `x-renio-csrf` header");
      }
      sessions.end(id!);
    }
    const cleared = setCookie(sessions.cookieName, "", { path: "/", maxAgeS: 0, secure: sessions.secure });
    return c.json({ object: "session", signedIn: false }, 200, { "set-cookie": cleared, "cache-control": "no-store" });
  });

  return routes;
}

/** The page again, told why the sign-in failed (it shows the message as text). */
function failedSignIn(error: unknown): string {
  const message = error instanceof RelayError ? error.message : "Sign-in failed";
  return `/dashboard/?sign_in_error=${encodeURIComponent(message)}`;
}

function sessionOf(c: Context<HttpEnv>, sessions: AdminSessions) {
  const id = cookieValue(c.req.header("cookie"), sessions.cookieName);
  return id === undefined ? undefined : sessions.get(id);
}

function actorJson(actor: AdminActor): { actor: string; roles: string[] } {
  return { actor: actor.id, roles: [...actor.roles] };
}

function redirect(location: string, ...cookies: string[]): Response {
  const headers = new Headers({ location, "cache-control": "no-store" });
  for (const cookie of cookies) headers.append("set-cookie", cookie);
  return new Response(null, { status: 302, headers });
}
