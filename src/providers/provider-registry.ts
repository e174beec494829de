import type { Config, ProviderConfig } from "../config/config-schema.ts";
import { createAnthropicProvider } from "./anthropic/anthropic-provider.ts";
import { createAzureProvider } from "./azure/azure-provider.ts";
import { createBedrockProvider } from "./bedrock/bedrock-provider.ts";
import { createGeminiProvider } from "./gemini/gemini-provider.ts";
import { createHttpProvider, joinUrl } from "./http-provider.ts";
import { createMock } from "./mock/mock-server.ts";
import { createOpenAiProvider } from "./openai/openai-provider.ts";
import type { Fetch, Provider } from "./provider.ts";

type MockConfig = Extract<ProviderConfig, { type: "mock" }>;

/** Builds every configured provider once, at startup. */
export function createProviders(config: Config, fetch: Fetch): ReadonlyMap<string, Provider> {
  const providers = new Map<string, Provider>();
  for (const [id, provider] of config.providers) {
    providers.set(id, createProvider(id, provider, fetch));
  }
  return providers;
}

function createProvider(id: string, config: ProviderConfig, fetch: Fetch): Provider {
  switch (config.type) {
    case "openai":
      return createOpenAiProvider(id, config, fetch);
    case "anthropic":
      return createAnthropicProvider(id, config, fetch);
    case "azure":
      return createAzureProvider(id, config, fetch);
    case "gemini":
      return createGeminiProvider(id, config, fetch);
    case "mock":
      return createMockProvider(id, config, fetch);
    case "bedrock":
      return createBedrockProvider(id, config, fetch);
  }
}

/** The mock speaks both wire formats; in-process unless a `baseUrl` points at a `renio mock`. */
function createMockProvider(id: string, config: MockConfig, fetch: Fetch): Provider {
  const baseUrl = config.baseUrl;
  const mock = baseUrl === undefined ? createMock({
    latencyMs: config.latencyMs,
    chunkIntervalMs: config.chunkIntervalMs,
    chunks: config.chunks,
    answer: config.answer,
    script: config.faults,
  }) : undefined;
  return createHttpProvider({
    id,
    settings: config,
    wires: new Set(["openai", "anthropic"]),
    urlFor: (path) => joinUrl(baseUrl ?? "http://mock.renio.internal", path),
    fixedHeaders: {},
    fetch: mock ? (url, init) => mock.fetch(new Request(url, init)) : fetch,
    inProcess: mock !== undefined,
  });
}
