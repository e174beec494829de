import { z } from "zod";
import { nameText } from "./schema-text.ts";

/** Azure OpenAI: OpenAI wire format, deployment or v1 URLs, `api-key` or Microsoft Entra ID auth (the timeouts are added by config-schema.ts). */
export const azureFields = {
  type: z.literal("azure").describe("`openai` (any OpenAI-compatible `baseUrl`), `anthropic`, `azure`, `gemini`, `bedrock` or `mock`"),
  /** The resource's endpoint, e.g. https://my-resource.openai.azure.com */
  baseUrl: z.url().describe("the provider's URL (`openai`: including `/v1`; `azure`: the resource endpoint; `mock`: a `renio mock`)"),
  /** `deployments`: /openai/deployments/{upstream model}/…?api-version=; `v1`: /openai/v1/… with the model in the body. */
  api: z.enum(["deployments", "v1"]).default("deployments").describe("`azure`: `deployments` (the target's model names the deployment) or `v1`"),
  apiVersion: z.string().min(1).default("2024-10-21").describe("`azure`: the `api-version` in deployments mode"),
  apiKey: z.string().optional().describe("the provider's key (usually `${ENV}`); `azure`: exactly one of `apiKey` or `entra`"),
  /** Microsoft Entra ID client credentials (instead of apiKey). */
  entra: z.strictObject({
    tenantId: z.string().min(1).describe("the app registration"),
    clientId: z.string().min(1).describe("the app registration"),
    clientSecret: z.string().min(1).describe("the app registration"),
    /** Token endpoint; default https://login.microsoftonline.com/{tenantId}/oauth2/v2.0/token */
    tokenUrl: z.url().optional().describe("the token endpoint"),
    scope: z.string().min(1).default("https://cognitiveservices.azure.com/.default").describe("the token's scope"),
  }).optional().describe("`azure`: Entra ID client credentials instead of `apiKey`"),
  /** The resource's Azure location (e.g. swedencentral), checked against `region`. */
  location: z.string().min(1).optional().describe("`azure`: the resource's location (e.g. `swedencentral`)"),
  region: nameText().default("global").describe("the region label keys' `regions` match; must not contradict the region the URL or location names"),
  headers: z.record(z.string(), z.string()).default({}).describe("headers added to every upstream request"),
};
