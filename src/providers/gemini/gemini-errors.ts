import { openAiError } from "../translation/openai-error.ts";

/** Gemini's errors (`{error:{code,message,status}}`) in the OpenAI envelope. */

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
  return openAiError(response.status, message, { code, secret });
}
