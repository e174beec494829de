import type { Fetch } from "../provider.ts";

/** Microsoft Entra ID client credentials (OAuth 2.0 client-credentials grant). */
export interface EntraCredentials {
  readonly tenantId: string;
  readonly clientId: string;
  readonly clientSecret: string;
  readonly tokenUrl?: string;
  readonly scope: string;
}

/** Refresh this long before the token expires, so no call carries a token about to lapse. */
export const REFRESH_MARGIN_MS = 5 * 60_000;

/** An Entra token source: one token request at a time, reused until shortly before expiry. */
export interface EntraTokens {
  token(): Promise<string>;
}

/** Why the token endpoint refused; never carries the client secret or the answer's body. */
export class EntraTokenError extends Error {}

export function createEntraTokens(credentials: EntraCredentials, fetch: Fetch, now: () => number = Date.now): EntraTokens {
  const url = credentials.tokenUrl ?? `https://login.microsoftonline.com/${encodeURIComponent(credentials.tenantId)}/oauth2/v2.0/token`;
  let cached: { value: string; refreshAt: number } | undefined;
  let pending: Promise<string> | undefined;
  const request = async (): Promise<string> => {
    const form = new URLSearchParams({
      grant_type: "client_credentials",
      client_id: credentials.clientId,
      client_secret: credentials.clientSecret,
      scope: credentials.scope,
    });
    const response = await fetch(url, { method: "POST", headers: { "content-type": "application/x-www-form-urlencoded" }, body: form.toString() });
    const answer = (await response.json().catch(() => undefined)) as { access_token?: unknown; expires_in?: unknown } | undefined;
    if (!response.ok || typeof answer?.access_token !== "string" || answer.access_token === "") {
      throw new EntraTokenError(`Microsoft Entra ID token request failed (HTTP ${response.status})`);
    }
    const expiresInMs = Number(answer.expires_in ?? 0) * 1000;
    cached = { value: answer.access_token, refreshAt: now() + expiresInMs - REFRESH_MARGIN_MS };
    return answer.access_token;
  };
  return {
    token(): Promise<string> {
      if (cached !== undefined && now() < cached.refreshAt) return Promise.resolve(cached.value);
      pending ??= request().finally(() => (pending = undefined));
      return pending;
    },
  };
}
