import type { WireFormat } from "../../shared/usage.ts";

/**
 * The network-style error an in-process caller sees for the `reset` fault. Its stack is its one
 * line: a server that prints a body's error (Deno does) prints a line, not a trace.
 */
export class MockResetError extends TypeError {
  constructor() {
    super("mock: connection reset (fault)");
    this.name = "MockResetError";
    this.stack = `${this.name}: ${this.message}`;
  }
}

/** The error a stream ends with for the `cut` fault (network-style, like a dropped connection); its stack is its one line. */
export function mockCutError(): TypeError {
  const error = new TypeError("mock: stream cut (fault)");
  error.stack = `${error.name}: ${error.message}`;
  return error;
}

const JSON_HEADERS = { "content-type": "application/json" } as const;

/** An error response in the route's wire format (OpenAI or Anthropic envelope). */
export function mockErrorResponse(wire: WireFormat, status: number, message: string): Response {
  const body =
    wire === "anthropic"
      ? { type: "error", error: { type: anthropicErrorType(status), message } }
      : { error: { message, type: openaiErrorType(status), param: null, code: openaiErrorCode(status) } };
  return new Response(JSON.stringify(body), { status, headers: JSON_HEADERS });
}

function anthropicErrorType(status: number): string {
  switch (status) {
    case 400: return "invalid_request_error";
    case 401: return "authentication_error";
    case 402: return "billing_error";
    case 403: return "permission_error";
    case 404: return "not_found_error";
    case 405: return "invalid_request_error";
    case 413: return "request_too_large";
    case 429: return "rate_limit_error";
    case 504: return "timeout_error";
    case 503:
    case 529: return "overloaded_error";
    default: return status >= 500 ? "api_error" : "invalid_request_error";
  }
}

function openaiErrorType(status: number): string {
  if (status === 401) return "authentication_error";
  if (status === 403) return "permission_error";
  if (status === 404) return "not_found_error";
  if (status === 429) return "rate_limit_error";
  return status >= 500 ? "server_error" : "invalid_request_error";
}

function openaiErrorCode(status: number): string | null {
  if (status === 429) return "rate_limit_exceeded";
  if (status === 404) return "not_found";
  if (status === 405) return "method_not_allowed";
  if (status === 400) return "invalid_request";
  return status >= 500 ? "server_error" : null;
}
