import assert from "node:assert/strict";
import { createServer, type Server } from "node:http";
import Provider from "oidc-provider";

/** A person the provider signs in: their login and the claims of their ID token. */
export interface OidcPerson {
  readonly email: string;
  readonly groups: readonly string[];
}

/** An OpenID Connect provider (panva's oidc-provider) on loopback. */
export interface LocalOidcProvider {
  readonly issuer: string;
  stop(): Promise<void>;
}

/** The client the relay under test signs in as. */
export const OIDC_CLIENT = { clientId: "renio-dashboard", clientSecret: "renio-dashboard-client-secret-0123456789" } as const;

/**
 * Starts oidc-provider on a loopback port with one confidential client allowed to redirect to
 * `redirectUrl`, and `people` keyed by login (its developer login and consent pages, which any
 * password passes). Their ID tokens carry `email` and `groups`.
 */
export async function startOidcProvider(redirectUrl: string, people: ReadonlyMap<string, OidcPerson>): Promise<LocalOidcProvider> {
  const server: Server = createServer();
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const address = server.address();
  assert.ok(address !== null && typeof address === "object");
  const issuer = `http://127.0.0.1:${address.port}`;
  const provider = new Provider(issuer, {
    clients: [{
      client_id: OIDC_CLIENT.clientId,
      client_secret: OIDC_CLIENT.clientSecret,
      redirect_uris: [redirectUrl],
      grant_types: ["authorization_code"],
      response_types: ["code"],
      token_endpoint_auth_method: "client_secret_basic",
    }],
    claims: { openid: ["sub"], email: ["email", "email_verified"], groups: ["groups"] },
    scopes: ["openid", "email", "groups"],
    conformIdTokenClaims: false,
    pkce: { required: () => true },
    cookies: { keys: ["oidc-test-cookie-key-0123456789abcdef"] },
    findAccount: (_ctx, sub) => {
      const person = people.get(sub);
      if (person === undefined) return undefined;
      return { accountId: sub, claims: () => ({ sub, email: person.email, email_verified: true, groups: [...person.groups] }) };
    },
  });
  server.on("request", provider.callback());
  return {
    issuer,
    stop: () => new Promise<void>((resolve) => {
      server.closeAllConnections();
      server.close(() => resolve());
    }),
  };
}

/** A response's cookies as `name=value` pairs, merged into `jar` (a cleared cookie leaves it). */
function keepCookies(response: Response, jar: Map<string, string>): void {
  for (const line of response.headers.getSetCookie()) {
    const [pair] = line.split(";");
    const at = pair!.indexOf("=");
    const name = pair!.slice(0, at).trim();
    const value = pair!.slice(at + 1).trim();
    if (value === "" || /max-age=0\b/i.test(line) || /expires=thu, 01 jan 1970/i.test(line)) jar.delete(name);
    else jar.set(name, value);
  }
}

const cookieHeader = (jar: Map<string, string>) => [...jar].map(([name, value]) => `${name}=${value}`).join("; ");

/** What an HTTP sign-in ends with: the relay's answer to its callback, and the relay's cookies. */
export interface HttpSignIn {
  /** The relay's last redirect: `/dashboard/` after a sign-in, `/dashboard/?sign_in_error=…` after a refusal. */
  readonly landing: string;
  /** The relay's `Set-Cookie` lines of the callback (flags asserted by tests). */
  readonly setCookies: readonly string[];
  /** The relay's cookies after the sign-in (the session cookie among them). */
  readonly relayCookies: Map<string, string>;
}

/**
 * Signs `login` in through the relay's `/dashboard/auth/login` and the provider's own login and
 * consent pages, over HTTP with a cookie jar per origin, the way a browser follows redirects.
 */
export async function signInOverHttp(relayUrl: string, login: string): Promise<HttpSignIn> {
  const jars = new Map<string, Map<string, string>>();
  const jarOf = (url: string) => {
    const origin = new URL(url).origin;
    if (!jars.has(origin)) jars.set(origin, new Map());
    return jars.get(origin)!;
  };
  let url = `${relayUrl}/dashboard/auth/login`;
  let init: { method: string; body?: URLSearchParams } = { method: "GET" };
  for (let hop = 0; hop < 20; hop++) {
    const jar = jarOf(url);
    const response = await fetch(url, { ...init, redirect: "manual", headers: { cookie: cookieHeader(jar) } });
    keepCookies(response, jar);
    const location = response.headers.get("location");
    if (url.startsWith(`${relayUrl}/dashboard/auth/callback`)) {
      await response.body?.cancel();
      return { landing: location ?? "", setCookies: response.headers.getSetCookie(), relayCookies: jarOf(relayUrl) };
    }
    if (location !== null) {
      await response.body?.cancel();
      url = new URL(location, url).href;
      init = { method: "GET" };
      continue;
    }
    // A page of the provider: its login form (any password) or its consent form.
    const html = await response.text();
    assert.equal(response.status, 200, `${url} answered ${response.status}: ${html.slice(0, 300)}`);
    const action = /<form[^>]*action="([^"]+)"/.exec(html)?.[1];
    assert.ok(action, `no form on ${url}`);
    const prompt = /name="prompt" value="(\w+)"/.exec(html)?.[1];
    const body = new URLSearchParams({ prompt: prompt ?? "" });
    if (prompt === "login") {
      body.set("login", login);
      body.set("password", "any");
    }
    url = new URL(action.replaceAll("&amp;", "&"), url).href;
    init = { method: "POST", body };
  }
  throw new Error("the sign-in did not come back to the relay within 20 redirects");
}
