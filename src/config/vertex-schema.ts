import { z } from "zod";

/** What Renio needs of a Google service-account key file (the JSON downloaded from the console). */
const serviceAccountKey = z.object({
  client_email: z.string().min(1),
  private_key: z.string().includes("PRIVATE KEY"),
  token_uri: z.url().optional(),
});

/** A parsed service-account key. */
export type ServiceAccountKey = z.infer<typeof serviceAccountKey>;

/** The service-account JSON text parsed, or undefined when it is not a usable key (never echoed: it is a secret). */
export function parseServiceAccount(text: string): ServiceAccountKey | undefined {
  try {
    const parsed = serviceAccountKey.safeParse(JSON.parse(text));
    return parsed.success ? parsed.data : undefined;
  } catch {
    return undefined;
  }
}

/** Vertex AI: where the model runs and the service account that calls it. */
export const vertexSchema = z.strictObject({
  project: z.string().regex(/^[a-z][a-z0-9-]*$/, "must be a Google Cloud project id").describe("the Google Cloud project and location (e.g. `europe-west4`)"),
  /** e.g. `europe-west4`, or `global`. */
  location: z.string().regex(/^(global|[a-z]+-[a-z]+\d+)$/, "must be a Vertex AI location such as europe-west4").describe("the Google Cloud project and location (e.g. `europe-west4`)"),
  /** The service-account key JSON (usually `${ENV_VAR}`). */
  serviceAccount: z.string().refine((text) => parseServiceAccount(text) !== undefined, "must be a service-account key JSON with client_email and private_key").describe("the service-account key JSON (usually `${ENV}`)"),
  /** Where the signed JWT is exchanged for an access token (default: the key's token_uri, else Google's). */
  tokenUri: z.url().optional().describe("where the signed JWT is exchanged for an access token"),
});

/** The region a Vertex location is in: `eu` for europe-*, `us` for us-*, `global`, else the location's continent prefix. */
export function vertexRegionOf(location: string): string {
  if (location === "global") return "global";
  const continent = location.slice(0, location.indexOf("-"));
  return continent === "europe" ? "eu" : continent;
}

/** Google's Generative Language API host: one global endpoint. */
export const GENERATIVE_LANGUAGE_URL = "https://generativelanguage.googleapis.com";

/** Checks a Gemini provider's `region` against what its URL or Vertex location says. */
export function checkGeminiRegion(provider: { region?: string | undefined; baseUrl?: string | undefined; vertex?: { location: string } | undefined; apiKey?: string | undefined }, ctx: z.RefinementCtx): void {
  if (provider.vertex !== undefined && provider.apiKey !== undefined) {
    ctx.addIssue({ code: "custom", path: ["apiKey"], message: "set either apiKey (Generative Language API) or vertex, not both" });
  }
  if (provider.region === undefined) return;
  const implied = provider.vertex !== undefined ? vertexRegionOf(provider.vertex.location) : provider.baseUrl === undefined || provider.baseUrl.startsWith(GENERATIVE_LANGUAGE_URL) ? "global" : undefined;
  if (implied !== undefined && implied !== provider.region) {
    const where = provider.vertex !== undefined ? `vertex.location ${provider.vertex.location}` : GENERATIVE_LANGUAGE_URL;
    ctx.addIssue({ code: "custom", path: ["region"], message: `"${provider.region}" contradicts ${where} (region ${implied})` });
  }
}
