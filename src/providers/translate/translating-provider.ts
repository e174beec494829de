import type { Provider, UpstreamCall } from "../provider.ts";
import { ROUTES } from "../../shared/route-spec.ts";
import { anthropicToOpenAiError, anthropicToOpenAiResponse } from "./anthropic-to-openai-response.ts";
import { anthropicToOpenAiStream } from "./anthropic-to-openai-stream.ts";
import { openAiToAnthropicRequest, UntranslatableError, type RequestTranslation } from "./openai-to-anthropic-request.ts";

const encoder = new TextEncoder();
const decoder = new TextDecoder();
const MESSAGES = ROUTES.get("/v1/messages")!;

/** Response headers that describe the provider's body, not the translated one. */
const BODY_HEADERS = ["content-length", "content-encoding", "content-type", "transfer-encoding"];

/**
 * Wraps an Anthropic-speaking provider so that OpenAI chat/completions callers reach it: the
 * caller's body is translated to a Messages request, the answer (JSON, SSE or error) back into
 * the caller's format with its usage in OpenAI's fields, so the relay's usage tap reads it as is.
 */
export function createOpenAiToAnthropicProvider(inner: Provider, options: RequestTranslation): Provider {
  return {
    id: inner.id,
    region: inner.region,
    wires: new Set(["openai"]),
    connectTimeoutMs: inner.connectTimeoutMs,
    firstByteTimeoutMs: inner.firstByteTimeoutMs,
    ...(inner.endpoint === undefined ? {} : { endpoint: inner.endpoint }),
    async send(call: UpstreamCall): Promise<Response> {
      if (call.route.path !== "/v1/chat/completions") return errorResponse(400, "invalid_request_error", `The route ${call.route.path} cannot be translated to Anthropic Messages; use /v1/chat/completions`, null);
      let request: Record<string, unknown>;
      try {
        request = openAiToAnthropicRequest(JSON.parse(decoder.decode(call.body)) as Record<string, unknown>, options);
      } catch (error) {
        if (error instanceof UntranslatableError) return errorResponse(400, "invalid_request_error", error.message, error.param);
        throw error;
      }
      const response = await inner.send({ ...call, route: MESSAGES, body: encoder.encode(JSON.stringify(request)) });
      const headers = new Headers(response.headers);
      for (const name of BODY_HEADERS) headers.delete(name);
      const created = Math.floor(Date.now() / 1000);
      if (!response.ok) {
        const text = await response.text();
        let parsed: unknown = null;
        try {
          parsed = JSON.parse(text);
        } catch {
          // Not JSON: the generic message below.
        }
        headers.set("content-type", "application/json");
        return new Response(JSON.stringify(anthropicToOpenAiError(parsed)), { status: response.status, headers });
      }
      if (request["stream"] === true && response.body !== null) {
        headers.set("content-type", "text/event-stream; charset=utf-8");
        return new Response(response.body.pipeThrough(anthropicToOpenAiStream(created)), { status: response.status, headers });
      }
      headers.set("content-type", "application/json");
      const message = (await response.json()) as Record<string, unknown>;
      return new Response(JSON.stringify(anthropicToOpenAiResponse(message, created)), { status: response.status, headers });
    },
  };
}

function errorResponse(status: number, type: string, message: string, param: string | null): Response {
  return new Response(JSON.stringify({ error: { message, type, param, code: "untranslatable_parameter" } }), { status, headers: { "content-type": "application/json" } });
}
