/** Errors as OpenAI-style envelopes: Gemini's `{error:{code,message,status}}` and untranslatable requests. */

import { OPENAI_ERROR_TYPES } from "../../shared/openai-error-types.ts";

/** An OpenAI-style error response. `secret` (the provider credential) is removed from the message. */
export function openAiError(status: number, message: string, code: string, param: string | null = null, secret?: string): Response {
  const clean = secret ? message.split(secret).join("[redacted]") : message;
  const body = { error: { message: clean, type: OPENAI_ERROR_TYPES[status] ?? "api_error", param, code } };
  return new Response(JSON.stringify(body), { status, headers: { "content-type": "application/json" } });
}

/** Maps a non-2xx Gemini answer to the OpenAI envelope with the same status. */
export async function fromGeminiError(response: Response, secret?: string): Promise<Response> {
  const text = await response.text();
  let message = `Gemini answered HTTP ${response.status}`;
  let code = "upstream_error";
  try {
    const error = (JSON.parse(text) as { error?: { message?: unknown; status?: unknown } }).error;
    if (typeof error?.message === "string") message = error.message;
    if (typeof error?.status === "string") code = error.status.toLowerCase();
  } catch {
    // Not JSON: the generic message stands.
  }
  return openAiError(response.status, message, code, null, secret);
}
