import { z } from "zod";
import { SERVER_TOOL_KINDS, type ServerToolKind } from "../shared/usage.ts";
import { amount, positiveInt } from "./schema-numbers.ts";

/** Per-million-token rates of one price tier. */
const rateFields = {
  /** Price per million input tokens. */
  input: amount,
  /** Price per million cached input tokens (defaults to `input`). */
  cachedInput: amount.optional(),
  /** Price per million output tokens. */
  output: amount,
  /** Price per million input tokens written to the prompt cache for 5 minutes (defaults to `input`). */
  cacheWrite5m: amount.optional(),
  /** Price per million input tokens written to the prompt cache for 1 hour (defaults to `input`). */
  cacheWrite1h: amount.optional(),
};

/** One model's prices in the config's `prices` (see docs/budgets.md). */
export const priceSchema = z.strictObject({
  ...rateFields,
  /** Largest output the model can produce; the reservation when a request sets none. */
  maxOutputTokens: positiveInt.optional(),
  /** Largest input the model accepts; the reservation for input sent by reference (URLs, file ids). */
  contextWindow: positiveInt.optional(),
  /** Rates for the whole call when its input (cached included) exceeds `aboveInputTokens`. */
  longContext: z.strictObject({ aboveInputTokens: positiveInt, ...rateFields }).optional(),
  /** OpenAI `service_tier` rates. */
  serviceTiers: z.strictObject({ priority: z.strictObject(rateFields).optional(), flex: z.strictObject(rateFields).optional() }).optional(),
  /** Audio token rates per million (output absent: audio output is charged as text output). */
  audio: z.strictObject({ input: amount, output: amount.optional() }).optional(),
  /** Price of one use of a server-side tool billed per use. */
  tools: z.strictObject(Object.fromEntries(SERVER_TOOL_KINDS.map((kind) => [kind, amount.optional()])) as Record<ServerToolKind, z.ZodOptional<typeof amount>>).optional(),
});
