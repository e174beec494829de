import { z } from "zod";
import { SERVER_TOOL_KINDS, type ServerToolKind } from "../shared/usage.ts";
import { amount, positiveInt } from "./schema-numbers.ts";

/** Per-million-token rates of one price tier. */
const rateFields = {
  /** Price per million input tokens. */
  input: amount.describe("price per million input tokens"),
  /** Price per million cached input tokens (defaults to `input`). */
  cachedInput: amount.optional().describe("price per million cached input tokens (cache reads)"),
  /** Price per million output tokens. */
  output: amount.describe("price per million output tokens"),
  /** Price per million input tokens written to the prompt cache for 5 minutes (defaults to `input`). */
  cacheWrite5m: amount.optional().describe("price per million input tokens written to the prompt cache for 5 minutes (Anthropic)"),
  /** Price per million input tokens written to the prompt cache for 1 hour (defaults to `input`). */
  cacheWrite1h: amount.optional().describe("price per million input tokens written to the prompt cache for 1 hour (Anthropic)"),
};

/** One model's prices in the config's `prices` (see docs/budgets.md). */
export const priceSchema = z.strictObject({
  ...rateFields,
  /** Largest output the model can produce; the reservation when a request sets none. */
  maxOutputTokens: positiveInt.optional().describe("the model's output maximum: caps reservations, and a larger request limit is 400 `max_tokens_too_large`"),
  /** Largest input the model accepts; the reservation for input sent by reference (URLs, file ids). */
  contextWindow: positiveInt.optional().describe("the model's context window, the input bound for input by reference (URLs, file ids)"),
  /** Rates for the whole call when its input (cached included) exceeds `aboveInputTokens`. */
  longContext: z.strictObject({ aboveInputTokens: positiveInt.describe("input (cached included) above this many tokens takes the long-context rates"), ...rateFields }).optional().describe("rates for the whole call when input exceeds a size"),
  /** OpenAI `service_tier` rates. */
  serviceTiers: z.strictObject({ priority: z.strictObject(rateFields).optional().describe("a tier's rates"), flex: z.strictObject(rateFields).optional().describe("a tier's rates") }).optional().describe("OpenAI `service_tier` rates"),
  /** Audio token rates per million (output absent: audio output is charged as text output). */
  audio: z.strictObject({ input: amount.describe("audio input and output tokens"), output: amount.optional().describe("audio input and output tokens") }).optional().describe("audio token rates"),
  /** Price of one use of a server-side tool billed per use. */
  tools: z.strictObject(Object.fromEntries(SERVER_TOOL_KINDS.map((kind) => [kind, amount.optional().describe("price per use of that tool")])) as Record<ServerToolKind, z.ZodOptional<typeof amount>>).optional().describe("currency per use of a server-side tool billed per use; under a strict budget a tool without a price is refused"),
});
