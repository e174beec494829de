import type { ServiceAccountKey } from "../../config/vertex-schema.ts";
import type { Fetch } from "../provider.ts";

const SCOPE = "https://www.googleapis.com/auth/cloud-platform";
const GOOGLE_TOKEN_URI = "https://oauth2.googleapis.com/token";
/** Lifetime asked for the JWT (Google's maximum). */
const JWT_LIFETIME_S = 3600;
/** A token is renewed this long before it expires. */
const RENEW_BEFORE_MS = 60_000;

/** A failure to obtain a token; its message names no secret. */
export class TokenError extends Error {}

/** Gives a valid OAuth access token for a service account, fetched once and reused until shortly before it expires. */
export type AccessTokenSource = () => Promise<string>;

/** The service account's token source: an RS256-signed JWT exchanged at `tokenUri` (the JWT bearer grant, RFC 7523). */
export function createAccessTokenSource(key: ServiceAccountKey, tokenUri: string | undefined, fetch: Fetch, now: () => number = Date.now): AccessTokenSource {
  const audience = tokenUri ?? key.token_uri ?? GOOGLE_TOKEN_URI;
  const signingKey = importPrivateKey(key.private_key);
  let cached: { token: string; renewAt: number } | undefined;
  let pending: Promise<string> | undefined;
  const fetchToken = async (): Promise<string> => {
    const issuedAt = Math.floor(now() / 1000);
    const assertion = await signJwt({ iss: key.client_email, scope: SCOPE, aud: audience, iat: issuedAt, exp: issuedAt + JWT_LIFETIME_S }, await signingKey);
    const response = await fetch(audience, {
      method: "POST",
      headers: { "content-type": "application/x-www-form-urlencoded" },
      body: new URLSearchParams({ grant_type: "urn:ietf:params:oauth:grant-type:jwt-bearer", assertion }).toString(),
    });
    const body = (await response.json().catch(() => ({}))) as { access_token?: unknown; expires_in?: unknown };
    if (!response.ok || typeof body.access_token !== "string") throw new TokenError(`the Vertex AI token endpoint refused the service account (HTTP ${response.status})`);
    const lifetimeMs = (typeof body.expires_in === "number" ? body.expires_in : JWT_LIFETIME_S) * 1000;
    cached = { token: body.access_token, renewAt: now() + lifetimeMs - RENEW_BEFORE_MS };
    return body.access_token;
  };
  return () => {
    if (cached !== undefined && now() < cached.renewAt) return Promise.resolve(cached.token);
    pending ??= fetchToken().finally(() => (pending = undefined));
    return pending;
  };
}

function importPrivateKey(pem: string): Promise<CryptoKey> {
  const base64 = pem.replace(/-----(BEGIN|END) PRIVATE KEY-----/g, "").replace(/\s+/g, "");
  const der = Uint8Array.from(atob(base64), (c) => c.charCodeAt(0));
  return crypto.subtle.importKey("pkcs8", der, { name: "RSASSA-PKCS1-v1_5", hash: "SHA-256" }, false, ["sign"]);
}

function base64Url(bytes: Uint8Array): string {
  let binary = "";
  for (const byte of bytes) binary += String.fromCharCode(byte);
  return btoa(binary).replace(/\+/g, "-").replace(/\//g, "_").replace(/=+$/, "");
}

async function signJwt(claims: Record<string, unknown>, key: CryptoKey): Promise<string> {
  const encoder = new TextEncoder();
  const input = `${base64Url(encoder.encode(JSON.stringify({ alg: "RS256", typ: "JWT" })))}.${base64Url(encoder.encode(JSON.stringify(claims)))}`;
  const signature = new Uint8Array(await crypto.subtle.sign("RSASSA-PKCS1-v1_5", key, encoder.encode(input)));
  return `${input}.${base64Url(signature)}`;
}
