import { createHash, randomBytes } from "node:crypto";
import { createRemoteJWKSet, jwtVerify, type JWTPayload } from "jose";
import type { AdminOidcConfig } from "../../config/admin-oidc-schema.ts";
import { RelayError } from "../../shared/relay-error.ts";

/** How long a call to the identity provider may take. */
const PROVIDER_TIMEOUT_MS = 10_000;
/** Seconds of clock difference tolerated on the ID token's times. */
const CLOCK_TOLERANCE_S = 60;

/** What one sign-in keeps between the redirect to the provider and its answer. */
export interface OidcAttempt {
  readonly state: string;
  readonly nonce: string;
  readonly codeVerifier: string;
}

/** The authorization code flow with PKCE against one provider, found by discovery. */
export interface OidcClient {
  /** A fresh state, nonce and PKCE verifier, and the provider URL to send the browser to. */
  start(): Promise<{ attempt: OidcAttempt; url: string }>;
  /** Trades the code for tokens and answers the ID token's claims, verified (signature by JWKS, iss, aud, exp, nonce). */
  finish(code: string, attempt: OidcAttempt): Promise<JWTPayload>;
}

interface Discovery {
  readonly authorizationEndpoint: string;
  readonly tokenEndpoint: string;
  readonly jwks: ReturnType<typeof createRemoteJWKSet>;
}

const random = () => randomBytes(32).toString("base64url");

/** A client for `config`; discovery runs at the first sign-in (and again after it fails). */
export function createOidcClient(config: AdminOidcConfig): OidcClient {
  let discovery: Promise<Discovery> | undefined;
  const discover = () => {
    discovery ??= discoverProvider(config.issuer).catch((error: unknown) => {
      discovery = undefined;
      throw error;
    });
    return discovery;
  };

  return {
    async start() {
      const { authorizationEndpoint } = await discover();
      const attempt = { state: random(), nonce: random(), codeVerifier: random() };
      const url = new URL(authorizationEndpoint);
      const params = {
        response_type: "code",
        client_id: config.clientId,
        redirect_uri: config.redirectUrl,
        scope: ["openid", ...config.scopes.filter((scope) => scope !== "openid")].join(" "),
        state: attempt.state,
        nonce: attempt.nonce,
        code_challenge: createHash("sha256").update(attempt.codeVerifier).digest("base64url"),
        code_challenge_method: "S256",
      };
      for (const [name, value] of Object.entries(params)) url.searchParams.set(name, value);
      return { attempt, url: url.href };
    },

    async finish(code, attempt) {
      const { tokenEndpoint, jwks } = await discover();
      const headers: Record<string, string> = { "content-type": "application/x-www-form-urlencoded", accept: "application/json" };
      const form = new URLSearchParams({ grant_type: "authorization_code", code, redirect_uri: config.redirectUrl, code_verifier: attempt.codeVerifier });
      if (config.clientSecret === undefined) form.set("client_id", config.clientId);
      else headers.authorization = `Basic ${btoa(`${encodeURIComponent(config.clientId)}:${encodeURIComponent(config.clientSecret)}`)}`;
      const answer = await providerJson(tokenEndpoint, { method: "POST", headers, body: form }, "token endpoint");
      const idToken = answer.id_token;
      if (typeof idToken !== "string") throw signInFailed("the identity provider answered no ID token");
      let payload: JWTPayload;
      try {
        ({ payload } = await jwtVerify(idToken, jwks, {
          issuer: config.issuer,
          audience: config.clientId,
          requiredClaims: ["exp", "iat", "sub"],
          clockTolerance: CLOCK_TOLERANCE_S,
        }));
      } catch (error) {
        throw signInFailed(`the ID token was refused (${error instanceof Error ? error.message : "invalid"})`);
      }
      if (payload.nonce !== attempt.nonce) throw signInFailed("the ID token's nonce does not match this sign-in");
      if (Array.isArray(payload.aud) && payload.aud.length > 1 && payload.azp !== config.clientId) throw signInFailed("the ID token was issued to another client (azp)");
      return payload;
    },
  };
}

/** Reads `<issuer>/.well-known/openid-configuration`; its issuer must be the configured one. */
async function discoverProvider(issuer: string): Promise<Discovery> {
  const url = `${issuer.replace(/\/+$/, "")}/.well-known/openid-configuration`;
  const document = new Map(Object.entries(await providerJson(url, { headers: { accept: "application/json" } }, "discovery document")));
  if (document.get("issuer") !== issuer) throw signInFailed(`the discovery document names the issuer ${JSON.stringify(document.get("issuer"))}, not the configured ${issuer}`);
  const endpoint = (name: string): string => {
    const value = document.get(name);
    if (typeof value !== "string" || !/^https?:\/\//.test(value)) throw signInFailed(`the discovery document has no ${name}`);
    return value;
  };
  return {
    authorizationEndpoint: endpoint("authorization_endpoint"),
    tokenEndpoint: endpoint("token_endpoint"),
    jwks: createRemoteJWKSet(new URL(endpoint("jwks_uri")), { timeoutDuration: PROVIDER_TIMEOUT_MS }),
  };
}

/** A JSON object from the provider; anything else is a sign-in failure naming what was asked. */
async function providerJson(url: string, init: RequestInit, what: string): Promise<Record<string, unknown>> {
  let response: Response;
  try {
    response = await fetch(url, { ...init, signal: AbortSignal.timeout(PROVIDER_TIMEOUT_MS), redirect: "error" });
  } catch {
    throw signInFailed(`the identity provider's ${what} could not be reached`);
  }
  const body: unknown = await response.json().catch(() => null);
  if (!response.ok || body === null || typeof body !== "object" || Array.isArray(body)) {
    const code = body !== null && typeof body === "object" && "error" in body && typeof body.error === "string" ? ` (${body.error.slice(0, 100)})` : "";
    throw signInFailed(`the identity provider's ${what} answered ${response.status}${code}`);
  }
  return body as Record<string, unknown>;
}

function signInFailed(message: string): RelayError {
  return new RelayError(502, "sign_in_failed", `Sign-in failed: ${message}`);
}
