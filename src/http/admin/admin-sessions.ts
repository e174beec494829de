import { randomBytes, timingSafeEqual } from "node:crypto";
import type { AdminRole } from "../../config/config-schema.ts";
import type { AdminActor } from "./admin-auth.ts";

/** Sessions kept at once; past it the oldest ends (every sign-in makes one). */
const MAX_SESSIONS = 10_000;

/** One signed-in person: who (for the audit and the roles), their CSRF token, and when it ends. */
export interface AdminSession {
  readonly actor: AdminActor;
  /** Sent back in the `x-renio-csrf` header by every state-changing call of this session. */
  readonly csrfToken: string;
  /** Epoch ms. */
  readonly expiresAt: number;
}

/** Dashboard sessions, kept in this relay's memory (a restart signs everyone out). */
export interface AdminSessions {
  /** The cookie that carries a session id: `__Host-renio_session` over https, else `renio_session`. */
  readonly cookieName: string;
  /** True when the cookie must be `Secure` (the dashboard is reached over https). */
  readonly secure: boolean;
  /** Starts a session for `actor` lasting `ttlMs`; answers its id (the cookie's value). */
  create(actor: AdminActor, ttlMs: number): { id: string; session: AdminSession };
  /** The live session with this id, or undefined (unknown or ended). */
  get(id: string): AdminSession | undefined;
  end(id: string): void;
}

/** An in-memory session store; `clock` gives epoch ms. */
export function createAdminSessions(secure: boolean, clock: () => number = Date.now): AdminSessions {
  // A Map keyed by the random session id (outside input only ever reads it).
  const sessions = new Map<string, AdminSession>();
  return {
    cookieName: secure ? "__Host-renio_session" : "renio_session",
    secure,
    create(actor, ttlMs) {
      const now = clock();
      for (const [id, session] of sessions) if (session.expiresAt <= now) sessions.delete(id);
      while (sessions.size >= MAX_SESSIONS) sessions.delete(sessions.keys().next().value!);
      const id = randomBytes(32).toString("base64url");
      const session = { actor: { id: actor.id, roles: new Set<AdminRole>(actor.roles) }, csrfToken: randomBytes(32).toString("base64url"), expiresAt: now + ttlMs };
      sessions.set(id, session);
      return { id, session };
    },
    get(id) {
      const session = sessions.get(id);
      if (session === undefined) return undefined;
      if (session.expiresAt > clock()) return session;
      sessions.delete(id);
      return undefined;
    },
    end(id) {
      sessions.delete(id);
    },
  };
}

/** True when `presented` is this session's CSRF token (compared in constant time). */
export function csrfMatches(session: AdminSession, presented: string | undefined): boolean {
  if (presented === undefined) return false;
  const a = Buffer.from(presented);
  const b = Buffer.from(session.csrfToken);
  return a.length === b.length && timingSafeEqual(a, b);
}

/** The value of cookie `name` in a `Cookie` header, or undefined. */
export function cookieValue(header: string | undefined, name: string): string | undefined {
  if (header === undefined) return undefined;
  for (const part of header.split(";")) {
    const at = part.indexOf("=");
    if (at > 0 && part.slice(0, at).trim() === name) return part.slice(at + 1).trim();
  }
  return undefined;
}

/** A `Set-Cookie` value: HttpOnly, SameSite=Lax, `Secure` when asked; `maxAgeS` 0 clears it. */
export function setCookie(name: string, value: string, options: { readonly path: string; readonly maxAgeS: number; readonly secure: boolean }): string {
  return `${name}=${value}; Path=${options.path}; Max-Age=${options.maxAgeS}; HttpOnly; SameSite=Lax${options.secure ? "; Secure" : ""}`;
}
