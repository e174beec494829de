/** Bedrock error answers (`{message}` + `x-amzn-errortype`) in the OpenAI error envelope. */

const TYPES: Readonly<Record<number, string>> = {
  400: "invalid_request_error",
  401: "authentication_error",
  403: "permission_error",
  404: "not_found_error",
  429: "rate_limit_error",
};

/** Error types whose message may quote the canonical request (and so the session token). */
const CREDENTIAL_ERRORS = new Set([
  "UnrecognizedClientException", "InvalidSignatureException", "AccessDeniedException",
  "ExpiredTokenException", "IncompleteSignatureException", "MissingAuthenticationTokenException",
]);

/** The error type name: `x-amzn-errortype` (or the body's `__type`) up to its first ':' or '#'. */
function errorType(header: string | null, body: Record<string, unknown>): string {
  const raw = header ?? (typeof body["__type"] === "string" ? body["__type"] : "");
  const name = raw.split(":")[0]!;
  return name.slice(name.lastIndexOf("#") + 1) || "UnknownError";
}

/** An OpenAI-format error Response. */
export function openAiError(status: number, message: string, param: string | null = null, code: string | null = null): Response {
  const type = TYPES[status] ?? (status >= 500 ? "server_error" : "invalid_request_error");
  return Response.json({ error: { message, type, param, code } }, { status });
}

/** Bedrock's exception name and message, with credential-related messages replaced by a fixed text. */
export function describeBedrockError(type: string, message: unknown): string {
  if (CREDENTIAL_ERRORS.has(type)) return `Bedrock rejected the provider's AWS credentials or permissions (${type})`;
  return `Bedrock ${type}: ${typeof message === "string" ? message : "no message"}`;
}

/** Translates a non-2xx Bedrock response, keeping its status. */
export async function bedrockErrorResponse(response: Response): Promise<Response> {
  let body: Record<string, unknown> = {};
  try {
    const parsed: unknown = JSON.parse(await response.text());
    if (typeof parsed === "object" && parsed !== null) body = parsed as Record<string, unknown>;
  } catch {
    // A non-JSON error body: its type header and status still say what happened.
  }
  const type = errorType(response.headers.get("x-amzn-errortype"), body);
  return openAiError(response.status, describeBedrockError(type, body["message"] ?? body["Message"]), null, type);
}
