import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import { ConfigError, formatProblem } from "../../../src/config/config-error.ts";
import { validateConfig } from "../../../src/config/config-load.ts";
import { createOidcClient } from "../../../src/http/admin/oidc-client.ts";
import { RelayError } from "../../../src/shared/relay-error.ts";
import { freePort } from "../../support/free-port.ts";
import { OIDC_CLIENT, signInOverHttp, startOidcProvider, type LocalOidcProvider } from "../../support/oidc-provider.ts";
import type { MockRelay } from "../../support/with-relay.ts";
import { startMockRelay } from "../../support/with-relay.ts";

/**
 * Sign-in with a real OpenID Connect provider (panva's oidc-provider on loopback): the code
 * flow with PKCE through its own login and consent pages, roles from the `groups` claim, a
 * session cookie with the right flags, CSRF on every change, the person in the audit.
 */

const ADMIN_TOKEN = "oidc-test-admin-token-0123456789";
const PEOPLE = new Map([
  ["ada", { email: "ada@example.com", groups: ["platform-admins", "engineers"] }],
  ["vic", { email: "vic@example.com", groups: ["engineers"] }],
  ["eve", { email: "eve@example.com", groups: ["contractors"] }],
]);

describe("admin sign-in with an OpenID Connect provider", () => {
  let provider: LocalOidcProvider;
  let opened: MockRelay;
  let relayUrl: string;

  before(async () => {
    const port = await freePort();
    relayUrl = `http://127.0.0.1:${port}`;
    const redirectUrl = `${relayUrl}/dashboard/auth/callback`;
    provider = await startOidcProvider(redirectUrl, PEOPLE);
    opened = await startMockRelay({
      config: {
        server: {
          host: "127.0.0.1", port, shutdownGraceMs: 2000, adminToken: ADMIN_TOKEN,
          admin: {
            oidc: {
              issuer: provider.issuer, clientId: OIDC_CLIENT.clientId, clientSecret: OIDC_CLIENT.clientSecret, redirectUrl,
              scopes: ["email", "groups"], rolesClaim: "groups",
              roles: { admin: ["platform-admins"], read: ["engineers"] },
              allowedGroups: ["platform-admins", "engineers"],
              sessionTtlSeconds: 600,
            },
          },
        },
        models: { "mock-gpt": { provider: "mock" } },
        prices: { "mock-gpt": { input: 1, output: 2 } },
      },
    });
  });

  after(async () => {
    await opened?.stop();
    await provider?.stop();
  });

  const cookieOf = (jar: Map<string, string>) => `renio_session=${jar.get("renio_session")}`;
  async function session(cookie: string): Promise<{ signedIn: boolean; actor?: string; roles?: string[]; csrfToken?: string; oidc: boolean }> {
    const response = await fetch(`${relayUrl}/dashboard/auth/session`, { headers: { cookie } });
    assert.equal(response.status, 200);
    return (await response.json()) as never;
  }

  test("an admin signs in, manages with the CSRF token, and the audit names them; without the token the change is refused", async () => {
    const signIn = await signInOverHttp(relayUrl, "ada");
    assert.equal(signIn.landing, "/dashboard/");
    const sessionCookie = signIn.setCookies.find((line) => line.startsWith("renio_session="));
    assert.ok(sessionCookie, `a session cookie is set: ${signIn.setCookies.join(" | ")}`);
    assert.match(sessionCookie, /; HttpOnly/);
    assert.match(sessionCookie, /; SameSite=Lax/);
    assert.match(sessionCookie, /; Path=\//);
    assert.match(sessionCookie, /; Max-Age=600/, "the session's lifetime is bounded");
    assert.doesNotMatch(sessionCookie, /; Secure/, "plain http on loopback: not Secure");

    const cookie = cookieOf(signIn.relayCookies);
    const me = await session(cookie);
    assert.equal(me.signedIn, true);
    assert.equal(me.actor, "oidc:ada@example.com");
    assert.deepEqual(new Set(me.roles), new Set(["read", "admin"]));
    assert.ok(me.csrfToken);

    // A read needs no CSRF token.
    assert.equal((await fetch(`${relayUrl}/admin/budgets`, { headers: { cookie } })).status, 200);

    const create = (headers: Record<string, string>) =>
      fetch(`${relayUrl}/admin/budgets`, { method: "POST", headers: { cookie, "content-type": "application/json", ...headers }, body: JSON.stringify({ id: "team-a", scope: "total", period: "day", limit: 3 }) });
    const forged = await create({});
    assert.equal(forged.status, 403);
    assert.equal(((await forged.json()) as { error: { code: string } }).error.code, "csrf_failed");
    const wrong = await create({ "x-renio-csrf": "not-the-token" });
    assert.equal(wrong.status, 403);
    await wrong.body?.cancel();
    const made = await create({ "x-renio-csrf": me.csrfToken! });
    assert.equal(made.status, 201, await made.clone().text());

    const audit = await fetch(`${relayUrl}/admin/audit?target=budget:team-a`, { headers: { authorization: `Bearer ${ADMIN_TOKEN}` } });
    const events = ((await audit.json()) as { data: { actor: string; action: string }[] }).data;
    assert.deepEqual(events.map((e) => [e.action, e.actor]), [["budget.create", "oidc:ada@example.com"]]);

    // The admin token keeps working for scripts, without any CSRF token.
    const scripted = await fetch(`${relayUrl}/admin/budgets/team-a`, { method: "PATCH", headers: { authorization: `Bearer ${ADMIN_TOKEN}`, "content-type": "application/json" }, body: JSON.stringify({ paused: true }) });
    assert.equal(scripted.status, 200);

    // Sign-out needs the CSRF token, ends the session and clears the cookie.
    assert.equal((await fetch(`${relayUrl}/dashboard/auth/logout`, { method: "POST", headers: { cookie } })).status, 403);
    const out = await fetch(`${relayUrl}/dashboard/auth/logout`, { method: "POST", headers: { cookie, "x-renio-csrf": me.csrfToken! } });
    assert.equal(out.status, 200);
    assert.match(out.headers.get("set-cookie") ?? "", /^renio_session=; .*Max-Age=0/);
    assert.equal((await session(cookie)).signedIn, false);
    const ended = await fetch(`${relayUrl}/admin/budgets`, { headers: { cookie } });
    assert.equal(ended.status, 401);
    await ended.body?.cancel();
  });

  test("a viewer (role read from the groups claim) reads but is refused every change (403)", async () => {
    const signIn = await signInOverHttp(relayUrl, "vic");
    assert.equal(signIn.landing, "/dashboard/");
    const cookie = cookieOf(signIn.relayCookies);
    const me = await session(cookie);
    assert.deepEqual(me.roles, ["read"]);
    assert.equal((await fetch(`${relayUrl}/admin/keys`, { headers: { cookie } })).status, 200);
    const headers = { cookie, "content-type": "application/json", "x-renio-csrf": me.csrfToken! };
    const key = await fetch(`${relayUrl}/admin/keys`, { method: "POST", headers, body: JSON.stringify({ project: "x" }) });
    assert.equal(key.status, 403);
    assert.match(((await key.json()) as { error: { message: string } }).error.message, /oidc:vic@example\.com.*lacks the role/);
    const budget = await fetch(`${relayUrl}/admin/budgets`, { method: "POST", headers, body: JSON.stringify({ id: "vic", scope: "total", period: "day", limit: 1 }) });
    assert.equal(budget.status, 403);
    await budget.body?.cancel();
  });

  test("a person outside the allowed groups is not signed in, and the page is told why", async () => {
    const signIn = await signInOverHttp(relayUrl, "eve");
    assert.match(decodeURIComponent(signIn.landing), /^\/dashboard\/\?sign_in_error=.*eve@example\.com is in none of the groups allowed/);
    assert.equal(signIn.relayCookies.has("renio_session"), false);
  });

  test("a provider whose discovery names another issuer is not trusted", async () => {
    const config = validateConfig({
      server: { admin: { oidc: { issuer: `${provider.issuer}/`, clientId: OIDC_CLIENT.clientId, redirectUrl: `${relayUrl}/dashboard/auth/callback`, roles: { admin: ["x"] } } } },
      storage: { type: "sqlite", path: ":memory:" }, providers: { mock: { type: "mock" } }, models: { m: { provider: "mock" } },
    }, {});
    const client = createOidcClient(config.server.admin.oidc!);
    await assert.rejects(client.start(), (error: unknown) => error instanceof RelayError && error.code === "sign_in_failed" && error.message.includes(`names the issuer "${provider.issuer}"`));
  });

  test("a callback not started by this browser signs no one in", async () => {
    const forged = await fetch(`${relayUrl}/dashboard/auth/callback?code=abc&state=made-up`, { redirect: "manual" });
    assert.equal(forged.status, 302);
    assert.match(decodeURIComponent(forged.headers.get("location")!), /sign_in_error=.*unknown, expired or was started in another browser/);
    assert.equal(forged.headers.getSetCookie().some((line) => line.startsWith("renio_session=") && !/Max-Age=0/.test(line)), false);
  });
});

describe("server.admin.oidc in the config", () => {
  const oidc = { issuer: "https://login.example.com", clientId: "renio", redirectUrl: "https://renio.example.com/dashboard/auth/callback", roles: { admin: ["ops"] } };
  const problems = (server: Record<string, unknown>): string[] => {
    try {
      validateConfig({ server, storage: { type: "sqlite", path: ":memory:" }, providers: { mock: { type: "mock" } }, models: { m: { provider: "mock" } } }, {});
      return [];
    } catch (error) {
      assert.ok(error instanceof ConfigError);
      return error.problems.map(formatProblem);
    }
  };

  test("sign-in alone opens the admin API: an admin listener and a public address need no admin token", () => {
    assert.deepEqual(problems({ admin: { port: 9090, oidc } }), []);
    assert.deepEqual(problems({ host: "0.0.0.0", admin: { oidc } }), []);
  });

  test("a redirect URL elsewhere than the callback, and no role mapped, are refused by name", () => {
    assert.deepEqual(problems({ admin: { oidc: { ...oidc, redirectUrl: "https://renio.example.com/callback" } } }), [
      "server.admin.oidc.redirectUrl: must end with the path /dashboard/auth/callback",
    ]);
    assert.equal(problems({ admin: { oidc: { ...oidc, roles: {} } } }).length, 1);
    assert.match(problems({ admin: { oidc: { ...oidc, roles: {} } } })[0]!, /map at least one role/);
  });
});
