import { RelayError } from "../shared/relay-error.ts";

/** The request header a client sets its own deadline with (ms, capped by `routing.maxRequestTimeoutMs`). */
export const TIMEOUT_HEADER = "x-renio-timeout-ms";

/**
 * A call's total deadline (ms, retries and backoff included): the client's `x-renio-timeout-ms`
 * capped at `capMs`, else the model's. A header that is not a positive whole number of ms is a
 * 400 naming it.
 */
export function callDeadlineMs(headers: Headers, modelMs: number, capMs: number): number {
  const asked = headers.get(TIMEOUT_HEADER);
  if (asked === null) return modelMs;
  const ms = Number(asked);
  if (asked.trim() === "" || !Number.isInteger(ms) || ms <= 0) {
    throw new RelayError(400, "invalid_request", `The \`${TIMEOUT_HEADER}\` header must be a positive whole number of milliseconds`);
  }
  return Math.min(ms, capMs);
}
