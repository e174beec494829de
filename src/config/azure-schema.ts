import { z } from "zod";
import { nameText } from "./schema-text.ts";

/** Azure OpenAI: OpenAI wire format, deployment or v1 URLs, `api-key` or Microsoft Entra ID auth (the timeouts are added by config-schema.ts). */
export const azureFields = {
  type: z.literal("azure"),
  /** The resource's endpoint, e.g. https://my-resource.openai.azure.com */
  baseUrl: z.url(),
  /** `deployments`: /openai/deployments/{upstream model}/…?api-version=; `v1`: /openai/v1/… with the model in the body. */
  api: z.enum(["deployments", "v1"]).default("deployments"),
  apiVersion: z.string().min(1).default("2024-10-21"),
  apiKey: z.string().optional(),
  /** Microsoft Entra ID client credentials (instead of apiKey). */
  entra: z.strictObject({
    tenantId: z.string().min(1),
    clientId: z.string().min(1),
    clientSecret: z.string().min(1),
    /** Token endpoint; default https://login.microsoftonline.com/{tenantId}/oauth2/v2.0/token */
    tokenUrl: z.url().optional(),
    scope: z.string().min(1).default("https://cognitiveservices.azure.com/.default"),
  }).optional(),
  /** The resource's Azure location (e.g. swedencentral), checked against `region`. */
  location: z.string().min(1).optional(),
  region: nameText().default("global"),
  headers: z.record(z.string(), z.string()).default({}),
};
