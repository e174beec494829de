import { z } from "zod";
import { nameText } from "./schema-text.ts";

/** Anthropic's Messages API; the timeouts are added by config-schema.ts. */
export const anthropicFields = {
  type: z.literal("anthropic"),
  baseUrl: z.url().default("https://api.anthropic.com"),
  apiKey: z.string().optional(),
  /** The `anthropic-version` header sent. */
  version: z.string().default("2023-06-01"),
  region: nameText().default("global"),
  headers: z.record(z.string(), z.string()).default({}),
};
