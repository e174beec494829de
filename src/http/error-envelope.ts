import { OPENAI_ERROR_TYPES } from "../shared/openai-error-types.ts";
import type { RelayError } from "../shared/relay-error.ts";
import type { WireFormat } from "../shared/usage.ts";

const ANTHROPIC_TYPES: Record<number, string> = {
  400: "invalid_request_error",
  401: "authentication_error",
  403: "permission_error",
  404: "not_found_error",
  405: "invalid_request_error",
  413: "request_too_large",
  414: "invalid_request_error",
  429: "rate_limit_error",
  503: "overloaded_error",
  504: "timeout_error",
  529: "overloaded_error",
};

/** Seconds a caller should wait before retrying a 503 (store unavailable, shutting down): failed writes are retried after 1 s. */
const RETRY_AFTER_503_S = "1";

/**
 * The one place a RelayError becomes a response: the provider-style JSON envelope of the
 * route's wire format, the error's status, and its headers. What the official SDKs read to
 * decide on a retry is set here: `x-should-retry: false` on refusals a retry cannot change
 * (4xx; a budget refusal brings its own), `retry-after` on 503s. Anthropic-style errors also
 * carry `request-id`, as Anthropic's API sends it.
 */
export function errorResponse(error: RelayError, wire: WireFormat, requestId: string): Response {
  const body =
    wire === "anthropic"
      ? { type: "error", error: { type: ANTHROPIC_TYPES[error.status] ?? "api_error", message: error.message, code: error.code }, request_id: requestId }
      : { error: { message: error.message, type: OPENAI_ERROR_TYPES[error.status] ?? "api_error", param: null, code: error.code } };
  const headers: Record<string, string> = { "content-type": "application/json", "x-request-id": requestId, ...retryHeaders(error), ...error.headers };
  if (wire === "anthropic") headers["request-id"] = requestId;
  if (error.status === 405) headers["allow"] = "POST";
  return new Response(JSON.stringify(body), { status: error.status, headers });
}

/** Retry advice by status, unless the error brings its own (a budget refusal knows when its period resets). */
function retryHeaders(error: RelayError): Record<string, string> {
  if (error.headers?.["x-should-retry"] !== undefined || error.headers?.["retry-after"] !== undefined) return {};
  if (error.status === 503) return { "retry-after": RETRY_AFTER_503_S };
  // 408 (a request that timed out) may succeed when sent again; every other refusal of Renio's would be refused again.
  if (error.status >= 400 && error.status < 500 && error.status !== 408) return { "x-should-retry": "false" };
  return {};
}

/** Which envelope a request expects when its route does not say (unknown paths). */
export function wireOf(path: string, headers: Headers): WireFormat {
  return path.startsWith("/v1/messages") || headers.has("anthropic-version") ? "anthropic" : "openai";
}
