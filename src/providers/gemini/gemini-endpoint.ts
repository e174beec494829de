import type { ProviderConfig } from "../../config/config-schema.ts";
import { GENERATIVE_LANGUAGE_URL, parseServiceAccount, vertexRegionOf } from "../../config/vertex-schema.ts";
import { joinUrl } from "../http-provider.ts";
import type { Fetch } from "../provider.ts";
import { createAccessTokenSource } from "./vertex-token.ts";

type GeminiConfig = Extract<ProviderConfig, { type: "gemini" }>;

/** The two ways to reach Gemini: the Generative Language API (API key) and Vertex AI (service account). */
export interface GeminiEndpoint {
  readonly baseUrl: string;
  readonly region: string;
  /** The URL of `method` (`generateContent` or `streamGenerateContent?alt=sse`) for `model`. */
  urlFor(model: string, method: string): string;
  /** Sets the credential header; rejects with a message naming no secret when none can be had. */
  authorize(headers: Headers): Promise<void>;
  /** The credential, to be removed from any upstream message. */
  readonly secret?: string;
}

/** Builds the endpoint a Gemini provider config describes. */
export function geminiEndpoint(config: GeminiConfig, fetch: Fetch): GeminiEndpoint {
  const vertex = config.vertex;
  if (vertex === undefined) {
    const baseUrl = config.baseUrl ?? GENERATIVE_LANGUAGE_URL;
    const models = joinUrl(baseUrl, "/v1beta/models");
    const apiKey = config.apiKey;
    return {
      baseUrl,
      region: config.region ?? "global",
      urlFor: (model, method) => `${models}/${encodeURIComponent(model)}:${method}`,
      authorize: (headers) => {
        if (apiKey) headers.set("x-goog-api-key", apiKey);
        return Promise.resolve();
      },
      ...(apiKey ? { secret: apiKey } : {}),
    };
  }
  const host = vertex.location === "global" ? "aiplatform.googleapis.com" : `${vertex.location}-aiplatform.googleapis.com`;
  const baseUrl = config.baseUrl ?? `https://${host}`;
  const models = joinUrl(baseUrl, `/v1/projects/${vertex.project}/locations/${vertex.location}/publishers/google/models`);
  // The schema has checked the key parses.
  const token = createAccessTokenSource(parseServiceAccount(vertex.serviceAccount)!, vertex.tokenUri, fetch);
  return {
    baseUrl,
    region: config.region ?? vertexRegionOf(vertex.location),
    urlFor: (model, method) => `${models}/${encodeURIComponent(model)}:${method}`,
    authorize: async (headers) => headers.set("authorization", `Bearer ${await token()}`),
  };
}
