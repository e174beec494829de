import { formatAmount } from "../shared/money.ts";
import type { CallQuote } from "./call-pricing.ts";

const count = (tokens: number): string => tokens.toLocaleString("en-US");

/**
 * A call's reservation in words, for a budget refusal: the amount, what it is made of (output
 * tokens, where their bound came from and their rate; input tokens; outputs; attempts), and how
 * to lower it through `field` (the caller's output-limit field: `max_tokens`, `max_output_tokens`,
 * …) or `budget.defaultOutputTokens`. Undefined for a quote without a reservation.
 */
export function reservationReason(quote: CallQuote, currency: string, field: string): { made: string; fix: string } | undefined {
  const reservation = quote.reservation;
  if (reservation === undefined) return undefined;
  const { outputTokens, outputFrom, inputTokens, choices, outputRate } = reservation;
  const model = quote.model === undefined ? "the model" : `\`${quote.model}\``;
  const bound =
    outputFrom === "request"
      ? `the request's \`${field}\``
      : outputFrom === "default"
        ? "the operator's `budget.defaultOutputTokens`, as the request sets no limit"
        : outputFrom === "model"
          ? `the maximum output of ${model}, as the request sets no limit`
          : `Renio's bound for a model of unknown maximum output, as the request sets no limit`;
  const outputs = choices > 1 ? ` for each of ${choices} outputs` : "";
  const attempts = quote.attempts !== undefined && quote.attempts > 1 ? `, for ${quote.attempts} attempts (\`retry.billedRetries\`)` : "";
  const made =
    `it reserves ${formatAmount(quote.reserved)} ${currency}, the most it may cost: up to ${count(outputTokens)} output tokens${outputs} ` +
    `(${bound}) at ${formatAmount(outputRate)} ${currency} per million, plus up to ${count(inputTokens)} input tokens${attempts}`;
  const fix =
    outputFrom === "request"
      ? `lower \`${field}\` (${count(outputTokens)} now)`
      : outputFrom === "default"
        ? `set \`${field}\` in the request to the answer's length you need, or ask the operator to lower \`budget.defaultOutputTokens\``
        : `set \`${field}\` in the request to the answer's length you need, or ask the operator to set \`budget.defaultOutputTokens\` (the output bound for calls that set none)`;
  return { made, fix };
}
