import type { ProviderConfig } from "../../config/config-schema.ts";
import { createHttpProvider, joinUrl } from "../http-provider.ts";
import type { Fetch, Provider } from "../provider.ts";

type OpenAiConfig = Extract<ProviderConfig, { type: "openai" }>;

/**
 * Any OpenAI-compatible API (OpenAI, Mistral, vLLM, Ollama, …). `baseUrl` includes the
 * version segment (e.g. https://api.openai.com/v1); public paths drop their "/v1".
 */
export function createOpenAiProvider(id: string, config: OpenAiConfig, fetch: Fetch): Provider {
  const fixedHeaders: Record<string, string> = { ...config.headers };
  if (config.apiKey) fixedHeaders["authorization"] = `Bearer ${config.apiKey}`;
  return createHttpProvider({
    id,
    settings: config,
    wires: new Set(["openai"]),
    urlFor: (path) => joinUrl(config.baseUrl, path.replace(/^\/v1\//, "/")),
    fixedHeaders,
    fetch,
  });
}
