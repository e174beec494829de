import { OPENAI_ERROR_TYPES } from "../../shared/openai-error-types.ts";

/** The fields of an OpenAI error envelope besides the message. */
export interface OpenAiErrorFields {
  /** `error.code`, e.g. `unsupported_parameter`, or the upstream's own error name. */
  readonly code?: string | null;
  /** `error.param`: the request parameter at fault. */
  readonly param?: string | null;
  /** The provider credential: removed from the message wherever it appears. */
  readonly secret?: string;
}

/**
 * A provider's answer in the OpenAI error envelope (`{error: {message, type, param, code}}`),
 * with the status given. `type` is OpenAI's for the status: the table's, else `server_error`
 * for 5xx and `invalid_request_error` for the rest, as OpenAI's API answers.
 */
export function openAiError(status: number, message: string, fields: OpenAiErrorFields = {}): Response {
  const clean = fields.secret ? message.split(fields.secret).join("[redacted]") : message;
  const type = OPENAI_ERROR_TYPES[status] ?? (status >= 500 ? "server_error" : "invalid_request_error");
  const body = { error: { message: clean, type, param: fields.param ?? null, code: fields.code ?? null } };
  return new Response(JSON.stringify(body), { status, headers: { "content-type": "application/json" } });
}
