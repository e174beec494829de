/**
 * The event that ends a streamed answer a policy blocked, in the caller's wire format, as each
 * provider sends an error mid-stream (and each official SDK raises it): OpenAI chat and
 * completions a `data:` chunk with an `error` object, the Responses API an `error` event with the
 * next sequence number, Anthropic an `error` event.
 */
export function blockedEvent(path: string, message: string, lastSequence: number | undefined): string {
  if (path === "/v1/messages") {
    return `event: error\ndata: ${JSON.stringify({ type: "error", error: { type: "invalid_request_error", message } })}\n\n`;
  }
  if (path === "/v1/responses") {
    const event = { type: "error", code: "guardrail_blocked", message, param: null, sequence_number: (lastSequence ?? -1) + 1 };
    return `event: error\ndata: ${JSON.stringify(event)}\n\n`;
  }
  return `data: ${JSON.stringify({ error: { message, type: "invalid_request_error", param: null, code: "guardrail_blocked" } })}\n\n`;
}
