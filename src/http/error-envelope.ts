import type { RelayError } from "../shared/relay-error.ts";
import type { WireFormat } from "../shared/usage.ts";

const OPENAI_TYPES: Record<number, string> = {
  400: "invalid_request_error",
  401: "authentication_error",
  403: "permission_error",
  404: "not_found_error",
  405: "invalid_request_error",
  413: "invalid_request_error",
  429: "rate_limit_error",
};

const ANTHROPIC_TYPES: Record<number, string> = {
  400: "invalid_request_error",
  401: "authentication_error",
  403: "permission_error",
  404: "not_found_error",
  405: "invalid_request_error",
  413: "request_too_large",
  429: "rate_limit_error",
  503: "overloaded_error",
  504: "timeout_error",
  529: "overloaded_error",
};

/**
 * The one place a RelayError becomes a response: the provider-style JSON envelope of the
 * route's wire format, the error's status, and its headers.
 */
export function errorResponse(error: RelayError, wire: WireFormat, requestId: string): Response {
  const body =
    wire === "anthropic"
      ? { type: "error", error: { type: ANTHROPIC_TYPES[error.status] ?? "api_error", message: error.message, code: error.code }, request_id: requestId }
      : { error: { message: error.message, type: OPENAI_TYPES[error.status] ?? "api_error", param: null, code: error.code } };
  const headers: Record<string, string> = { "content-type": "application/json", "x-request-id": requestId, ...error.headers };
  if (error.status === 405) headers["allow"] = "POST";
  return new Response(JSON.stringify(body), { status: error.status, headers });
}

/** Which envelope a request expects when its route does not say (unknown paths). */
export function wireOf(path: string, headers: Headers): WireFormat {
  return path.startsWith("/v1/messages") || headers.has("anthropic-version") ? "anthropic" : "openai";
}
