import type { ProviderConfig } from "../../config/config-schema.ts";
import { createHttpProvider, withQuery } from "../http-provider.ts";
import type { Fetch, Provider, UpstreamCall } from "../provider.ts";
import { azureUrl, namesDeployment } from "./azure-urls.ts";
import { createEntraTokens, EntraTokenError } from "./entra-token.ts";

type AzureConfig = Extract<ProviderConfig, { type: "azure" }>;

/** Options for tests: the clock the Entra token cache reads. */
export interface AzureOptions {
  readonly now?: () => number;
}

/**
 * Azure OpenAI. Speaks the OpenAI wire format (requests, responses, usage and error envelopes,
 * content-filter errors included, pass through unchanged); differs in URL and auth.
 */
export function createAzureProvider(id: string, config: AzureConfig, fetch: Fetch, options: AzureOptions = {}): Provider {
  const fixedHeaders: Record<string, string> = { ...config.headers };
  if (config.apiKey !== undefined) fixedHeaders["api-key"] = config.apiKey;
  const tokens = config.entra ? createEntraTokens(config.entra, fetch, options.now) : undefined;
  return createHttpProvider({
    id,
    settings: config,
    wires: new Set(["openai"]),
    urlFor: (path) => azureUrl(config.baseUrl, config.api, config.apiVersion, path),
    fixedHeaders,
    fetch,
    async prepare(call: UpstreamCall, url: string, headers: Headers): Promise<string | Response> {
      if (tokens !== undefined) {
        try {
          headers.set("authorization", `Bearer ${await tokens.token()}`);
        } catch (error) {
          if (!(error instanceof EntraTokenError)) throw error;
          return authFailure(id, error.message);
        }
      }
      if (!namesDeployment(config.api, call.route.path)) return url;
      // The deployment is the routed target's upstream model: no need to parse the body for it.
      return withQuery(azureUrl(config.baseUrl, config.api, config.apiVersion, call.route.path, call.model), call.query);
    },
  });
}

/** Renio could not get a token: a 502 in the OpenAI envelope, nothing sent upstream. */
function authFailure(id: string, why: string): Response {
  const error = { message: `Provider \`${id}\`: ${why}`, type: "upstream_auth_error", code: "upstream_auth_failed", param: null };
  return Response.json({ error }, { status: 502 });
}
