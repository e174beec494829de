import { RelayError } from "../shared/relay-error.ts";
import { DEFAULT_OUTPUT_RESERVATION, type ServerToolKind } from "../shared/usage.ts";
import { costOf, ratesFor } from "./cost.ts";
import type { Price } from "./prices-builtin.ts";

/** What reservationFor needs about a call. */
export interface ReservationInput {
  /** Size of the request body in bytes. */
  requestBytes: number;
  /** The request's output limit (`max_tokens` & co.), if any; 0 for calls without output. */
  maxOutputTokens?: number;
  /** The operator's output bound for a request that sets none (`budget.defaultOutputTokens`), capped at the model's maximum. */
  defaultOutputTokens?: number;
  /** Outputs generated per call (`n`, `best_of`); each may reach the output limit. Default 1. */
  choices?: number;
  /** True when some input is referenced (URL, file id, earlier response): input is bounded by the context window. */
  inputByReference?: boolean;
  /** The request's `service_tier` (OpenAI): `priority` / `flex` reserve at that tier's rates. */
  serviceTier?: string;
  /** Bounded uses of per-use server tools (each at `price.tools`); every use may add a pass over the context. */
  toolUses?: Partial<Record<ServerToolKind, number>>;
  price: Price;
  /** Model name, for the error message. */
  model: string;
}

/** Where a reservation's output bound came from: the request's limit, the operator's `budget.defaultOutputTokens`, the model's maximum output, or Renio's fallback. */
export type OutputBoundSource = "request" | "default" | "model" | "fallback";

/** A call's reservation and what it is made of (kept on the quote to explain a budget refusal). */
export interface Reservation {
  /** The cost bound, in the currency. */
  readonly amount: number;
  /** The output tokens reserved per output. */
  readonly outputTokens: number;
  readonly outputFrom: OutputBoundSource;
  /** The input tokens reserved (every pass over the input). */
  readonly inputTokens: number;
  /** Outputs per call (`n`, `best_of`). */
  readonly choices: number;
  /** The rate (per million tokens) each output token is reserved at. */
  readonly outputRate: number;
  /** Input plus output tokens. */
  readonly tokens: number;
}

/**
 * The upper bound of a call's cost, reserved before it is sent.
 *
 * Input: every token of text is at least one UTF-8 byte and JSON encoding never shrinks text,
 * so the request body's byte count bounds its input tokens, charged at the higher of the input
 * and cached-input prices. This bound holds for text and inline (base64) media. Input by
 * reference (image/file URLs, file ids, an earlier response) is bounded by the model's
 * `contextWindow` instead, when known (callers refuse such calls under a strict budget when not).
 * Server tools: each of the bounded `toolUses` is reserved at its per-use price, and, since a
 * tool's results join the context and the model reads it again, input is reserved once per
 * pass (1 + the uses).
 * Rates: the tier the reserved input reaches (long context), else the request's service tier,
 * every input token at the highest input rate that can apply (plain, cached, cache write,
 * audio) and every output token at the higher of text and audio output.
 * Output: the request's limit, else the operator's default (never above the model's maximum),
 * else the model's maximum, else DEFAULT_OUTPUT_RESERVATION, for
 * each of `choices` outputs. `outputTokens` is the per-output limit (what a relay adds to a
 * request that set none, so the provider enforces the bound); `tokens` the bound of input plus
 * output tokens (what a tokens-per-minute rate limit reserves).
 * Throws RelayError 400 `max_tokens_too_large` when the request asks for more than the model's
 * maximum output.
 */
export function reservationFor(input: ReservationInput): Reservation {
  const { requestBytes, maxOutputTokens, defaultOutputTokens, price, model, choices = 1, inputByReference = false, serviceTier, toolUses = {} } = input;
  const perPass = inputByReference && price.contextWindow !== undefined ? Math.max(requestBytes, price.contextWindow) : requestBytes;
  let uses = 0;
  for (const count of Object.values(toolUses)) uses += count;
  const inputTokens = perPass * (1 + uses);
  const limit = price.maxOutputTokens;
  if (maxOutputTokens !== undefined && limit !== undefined && maxOutputTokens > limit) {
    throw new RelayError(
      400,
      "max_tokens_too_large",
      `The requested maximum output (${maxOutputTokens} tokens) exceeds the maximum of \`${model}\` (${limit} tokens)`,
    );
  }
  const fallback = defaultOutputTokens === undefined ? limit : Math.min(defaultOutputTokens, limit ?? defaultOutputTokens);
  const outputTokens = maxOutputTokens ?? fallback ?? DEFAULT_OUTPUT_RESERVATION;
  const outputFrom: OutputBoundSource =
    maxOutputTokens !== undefined ? "request" : fallback === undefined ? "fallback" : defaultOutputTokens !== undefined && fallback === defaultOutputTokens ? "default" : "model";
  const rates = ratesFor(price, inputTokens, serviceTier);
  const audio = price.audio;
  const inputRate = Math.max(rates.input, rates.cachedInput, rates.cacheWrite5m ?? 0, rates.cacheWrite1h ?? 0, audio?.input ?? 0);
  const outputRate = Math.max(rates.output, audio?.output ?? 0);
  const worst: Price = price.tools === undefined ? { input: inputRate, cachedInput: inputRate, output: outputRate } : { input: inputRate, cachedInput: inputRate, output: outputRate, tools: price.tools };
  const amount = costOf({ inputTokens, cachedInputTokens: 0, outputTokens: outputTokens * choices, toolUses }, worst);
  return { amount, outputTokens, outputFrom, inputTokens, choices, outputRate, tokens: inputTokens + outputTokens * choices };
}
