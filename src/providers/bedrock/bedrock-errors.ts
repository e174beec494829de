import { openAiError } from "../translation/openai-error.ts";

/** Bedrock error answers (`{message}` + `x-amzn-errortype`) in the OpenAI error envelope. */

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
  return openAiError(response.status, describeBedrockError(type, body["message"] ?? body["Message"]), { code: type });
}
