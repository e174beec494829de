import { z } from "zod";
import { nameText } from "./schema-text.ts";

/** A provider speaking the OpenAI wire format (OpenAI, Mistral, vLLM, Ollama, …); the timeouts are added by config-schema.ts. */
export const openAiFields = {
  type: z.literal("openai"),
  baseUrl: z.url(),
  apiKey: z.string().optional(),
  region: nameText().default("global"),
  headers: z.record(z.string(), z.string()).default({}),
};
