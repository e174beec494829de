import { z } from "zod";
import { nameText } from "./schema-text.ts";

/** A provider speaking the OpenAI wire format (OpenAI, Mistral, vLLM, Ollama, …); the timeouts are added by config-schema.ts. */
export const openAiFields = {
  type: z.literal("openai").describe("`openai` (any OpenAI-compatible `baseUrl`), `anthropic`, `azure`, `gemini`, `bedrock` or `mock`"),
  baseUrl: z.url().describe("the provider's URL (`openai`: including `/v1`; `azure`: the resource endpoint; `mock`: a `renio mock`)"),
  apiKey: z.string().optional().describe("the provider's key (usually `${ENV}`); `azure`: exactly one of `apiKey` or `entra`"),
  region: nameText().default("global").describe("the region label keys' `regions` match; must not contradict the region the URL or location names"),
  headers: z.record(z.string(), z.string()).default({}).describe("headers added to every upstream request"),
};
