import type { ProviderConfig } from "../../config/config-schema.ts";
import { createHttpProvider, joinUrl } from "../http-provider.ts";
import type { Fetch, Provider } from "../provider.ts";

type AnthropicConfig = Extract<ProviderConfig, { type: "anthropic" }>;

/** Anthropic's Messages API: `x-api-key` and `anthropic-version` (the client's version wins). */
export function createAnthropicProvider(id: string, config: AnthropicConfig, fetch: Fetch): Provider {
  const fixedHeaders: Record<string, string> = { ...config.headers };
  if (config.apiKey) fixedHeaders["x-api-key"] = config.apiKey;
  return createHttpProvider({
    id,
    settings: config,
    wires: new Set(["anthropic"]),
    urlFor: (path) => joinUrl(config.baseUrl, path),
    fixedHeaders,
    defaultHeaders: { "anthropic-version": config.version },
    fetch,
  });
}
