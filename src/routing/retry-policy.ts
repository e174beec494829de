import type { RetrySettings } from "../config/model-routes.ts";

/**
 * Which upstream outcomes a call is retried on, how long it waits first, and the
 * context-window answer that moves it to a larger model. Pure: the attempt loop decides with it.
 */

/** Provider statuses that may change on another try (Anthropic's 529 "overloaded" included). */
const RETRYABLE_STATUSES: ReadonlySet<number> = new Set([408, 409, 429, 500, 502, 503, 504, 529]);

/** Renio's codes for not getting an answer that another try may get: refused connection, reset before the answer, timeouts. */
const RETRYABLE_FAILURES: ReadonlySet<string> = new Set(["upstream_unreachable", "upstream_reset", "upstream_timeout"]);

/** Whether a provider answer with `status` is retried (never 400, 401, 403, 404, 413, 422 or any other). */
export function retryableStatus(status: number): boolean {
  return RETRYABLE_STATUSES.has(status);
}

/** Whether a failure to get an answer (by its error code) is retried. */
export function retryableFailure(code: string): boolean {
  return RETRYABLE_FAILURES.has(code);
}

/**
 * The wait a provider asks for: `retry-after-ms` (ms), else `retry-after` (seconds or an HTTP
 * date); undefined when it sends neither (or nothing readable).
 */
export function retryAfterMs(headers: Headers, now: number = Date.now()): number | undefined {
  const ms = headers.get("retry-after-ms");
  if (ms !== null) {
    const value = Number(ms);
    if (Number.isFinite(value) && value >= 0) return value;
  }
  const after = headers.get("retry-after");
  if (after === null) return undefined;
  const seconds = Number(after);
  if (after.trim() !== "" && Number.isFinite(seconds)) return seconds >= 0 ? seconds * 1000 : undefined;
  const date = Date.parse(after);
  return Number.isNaN(date) ? undefined : Math.max(0, date - now);
}

/**
 * The backoff before retry number `retry` (1 for the first retry) on a target tried before:
 * `backoffMs` doubled per retry up to `maxBackoffMs`, scaled by a random factor in [0.5, 1)
 * (jitter, so calls failing together do not retry together).
 */
export function backoffDelayMs(retry: RetrySettings, attempt: number, random: () => number): number {
  const base = Math.min(retry.maxBackoffMs, retry.backoffMs * 2 ** Math.max(0, attempt - 1));
  return base * (0.5 + random() / 2);
}

/** The first bytes of an error body read for the context-window check. */
export const CONTEXT_CHECK_BYTES = 4096;

const TOO_LONG = /context_length_exceeded|prompt is too long|maximum context length|context window|too many (input )?tokens/i;

/** Whether a provider's error answer says the prompt does not fit the model's context window. */
export function saysPromptTooLong(status: number, body: Uint8Array): boolean {
  if (status !== 400 && status !== 413) return false;
  return TOO_LONG.test(new TextDecoder().decode(body.subarray(0, CONTEXT_CHECK_BYTES)));
}
