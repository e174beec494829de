import assert from "node:assert/strict";
import { test } from "node:test";
import { cookieValue, createAdminSessions, csrfMatches, setCookie } from "./admin-sessions.ts";

const actor = { id: "oidc:ada@example.com", roles: new Set(["admin"] as const) };

test("over https the session cookie is __Host- and Secure; over http neither", () => {
  const secure = createAdminSessions(true);
  assert.equal(secure.cookieName, "__Host-renio_session");
  assert.equal(setCookie(secure.cookieName, "v", { path: "/", maxAgeS: 60, secure: secure.secure }), "__Host-renio_session=v; Path=/; Max-Age=60; HttpOnly; SameSite=Lax; Secure");
  const plain = createAdminSessions(false);
  assert.equal(plain.cookieName, "renio_session");
  assert.doesNotMatch(setCookie(plain.cookieName, "v", { path: "/", maxAgeS: 60, secure: plain.secure }), /Secure/);
});

test("a session ends at its lifetime and on sign-out; its CSRF token is its own", () => {
  let now = 1_000_000;
  const sessions = createAdminSessions(false, () => now);
  const { id, session } = sessions.create(actor, 60_000);
  const other = sessions.create(actor, 60_000);
  assert.equal(sessions.get(id)?.actor.id, "oidc:ada@example.com");
  assert.equal(csrfMatches(session, session.csrfToken), true);
  assert.equal(csrfMatches(session, other.session.csrfToken), false);
  assert.equal(csrfMatches(session, undefined), false);
  now += 60_000;
  assert.equal(sessions.get(id), undefined, "ended at its lifetime");
  now -= 1;
  sessions.end(other.id);
  assert.equal(sessions.get(other.id), undefined, "ended by sign-out");
});

test("cookieValue finds one cookie among several", () => {
  assert.equal(cookieValue("a=1; renio_session=xyz; b=2", "renio_session"), "xyz");
  assert.equal(cookieValue("xrenio_session=1", "renio_session"), undefined);
  assert.equal(cookieValue(undefined, "renio_session"), undefined);
});
