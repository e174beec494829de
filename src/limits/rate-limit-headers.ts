import type { WireFormat } from "../shared/usage.ts";

/** Where one kind of limit (requests or tokens) stands, as a response reports it. */
export interface RateReport {
  readonly limit: number;
  readonly remaining: number;
  /** ms until the limit is back to its full allowance. */
  readonly resetMs: number;
}

/**
 * The headers the official SDKs and clients read, in the route's dialect: OpenAI's
 * `x-ratelimit-{limit,remaining,reset}-{requests,tokens}` (reset as a duration, `1s`, `6m0s`,
 * `20ms`) or Anthropic's `anthropic-ratelimit-{requests,tokens}-{limit,remaining,reset}` (reset
 * as an RFC 3339 time). A null report adds nothing for its kind.
 */
export function rateLimitHeaders(wire: WireFormat, requests: RateReport | null, tokens: RateReport | null, now: number): Record<string, string> {
  const headers: Record<string, string> = {};
  if (requests !== null) addReport(headers, wire, "requests", requests, now);
  if (tokens !== null) addReport(headers, wire, "tokens", tokens, now);
  return headers;
}

/** `retry-after` (whole seconds, rounded up) and the `retry-after-ms` the SDKs prefer. */
export function retryAfterHeaders(waitMs: number): Record<string, string> {
  const ms = Math.max(1, Math.ceil(waitMs));
  return { "retry-after": String(Math.ceil(ms / 1000)), "retry-after-ms": String(ms) };
}

/** Header names by dialect and kind: limit, remaining, reset. */
const NAMES = {
  openai: {
    requests: ["x-ratelimit-limit-requests", "x-ratelimit-remaining-requests", "x-ratelimit-reset-requests"],
    tokens: ["x-ratelimit-limit-tokens", "x-ratelimit-remaining-tokens", "x-ratelimit-reset-tokens"],
  },
  anthropic: {
    requests: ["anthropic-ratelimit-requests-limit", "anthropic-ratelimit-requests-remaining", "anthropic-ratelimit-requests-reset"],
    tokens: ["anthropic-ratelimit-tokens-limit", "anthropic-ratelimit-tokens-remaining", "anthropic-ratelimit-tokens-reset"],
  },
} as const;

function addReport(headers: Record<string, string>, wire: WireFormat, kind: "requests" | "tokens", report: RateReport, now: number): void {
  const [limit, remaining, reset] = NAMES[wire][kind];
  headers[limit] = String(report.limit);
  headers[remaining] = String(report.remaining);
  headers[reset] = wire === "anthropic" ? rfc3339(now + report.resetMs) : duration(report.resetMs);
}

/** An epoch-ms instant as RFC 3339 in UTC, rounded up to the second (`2026-12-03T13:20:05Z`). */
export function rfc3339(epochMs: number): string {
  const second = Math.ceil(epochMs / 1000);
  if (second !== lastSecond) {
    lastSecond = second;
    lastRfc3339 = new Date(second * 1000).toISOString().replace(".000Z", "Z");
  }
  return lastRfc3339;
}

/** rfc3339's last answer: calls in the same second share it. */
let lastSecond = Number.NaN;
let lastRfc3339 = "";

/** ms as OpenAI writes durations (Go's format): `0s`, `20ms`, `1s`, `1.5s`, `6m0s`, `1h2m3s`; rounded up to the ms. */
export function duration(ms: number): string {
  const total = Math.ceil(ms);
  if (total <= 0) return "0s";
  if (total < 1000) return `${total}ms`;
  const hours = Math.floor(total / 3_600_000);
  const minutes = Math.floor((total % 3_600_000) / 60_000);
  const seconds = `${String((total % 60_000) / 1000)}s`;
  if (hours > 0) return `${hours}h${minutes}m${seconds}`;
  return minutes > 0 ? `${minutes}m${seconds}` : seconds;
}
