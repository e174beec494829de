import { z } from "zod";
import { nameText } from "./schema-text.ts";

/** Anthropic's Messages API; the timeouts are added by config-schema.ts. */
export const anthropicFields = {
  type: z.literal("anthropic").describe("`openai` (any OpenAI-compatible `baseUrl`), `anthropic`, `azure`, `gemini`, `bedrock` or `mock`"),
  baseUrl: z.url().default("https://api.anthropic.com").describe("the provider's URL (`openai`: including `/v1`; `azure`: the resource endpoint; `mock`: a `renio mock`)"),
  apiKey: z.string().optional().describe("the provider's key (usually `${ENV}`); `azure`: exactly one of `apiKey` or `entra`"),
  /** The `anthropic-version` header sent. */
  version: z.string().default("2023-06-01").describe("`anthropic`: the `anthropic-version` sent when the client sent none"),
  region: nameText().default("global").describe("the region label keys' `regions` match; must not contradict the region the URL or location names"),
  headers: z.record(z.string(), z.string()).default({}).describe("headers added to every upstream request"),
};
