import type { ProviderConfig } from "../../config/config-schema.ts";
import { endpointOf } from "../http-provider.ts";
import type { Fetch, Provider, UpstreamCall } from "../provider.ts";
import { geminiEndpoint } from "./gemini-endpoint.ts";
import { openAiError } from "../translation/openai-error.ts";
import { fromGeminiError } from "./gemini-errors.ts";
import { UntranslatableError } from "../translation/request-translation.ts";
import { toGeminiRequest } from "./openai-to-gemini-request.ts";
import { toChatCompletion } from "./openai-to-gemini-response.ts";
import { toChatCompletionStream } from "./openai-to-gemini-stream.ts";
import { TokenError } from "./vertex-token.ts";

type GeminiConfig = Extract<ProviderConfig, { type: "gemini" }>;

const CHAT_PATH = "/v1/chat/completions";

/**
 * Google Gemini (Generative Language API or Vertex AI), spoken to in its native `generateContent` /
 * `streamGenerateContent?alt=sse` and offered to callers as OpenAI chat/completions.
 */
export function createGeminiProvider(id: string, config: GeminiConfig, fetch: Fetch): Provider {
  const gemini = geminiEndpoint(config, fetch);
  return {
    id,
    region: gemini.region,
    wires: new Set(["openai"]),
    connectTimeoutMs: config.connectTimeoutMs,
    firstByteTimeoutMs: config.firstByteTimeoutMs,
    endpoint: endpointOf(gemini.baseUrl),
    async send(call: UpstreamCall): Promise<Response> {
      if (call.route.path !== CHAT_PATH) return openAiError(400, `${call.route.path} is not served by a Gemini provider (only ${CHAT_PATH})`, { code: "unsupported_route" });
      let request;
      try {
        request = toGeminiRequest(JSON.parse(new TextDecoder().decode(call.body)) as Record<string, unknown>);
      } catch (error) {
        if (error instanceof UntranslatableError) return openAiError(400, error.message, { code: "unsupported_parameter", param: error.param });
        throw error;
      }
      const method = request.stream ? "streamGenerateContent?alt=sse" : "generateContent";
      const headers = new Headers(config.headers);
      headers.set("content-type", "application/json");
      headers.set("x-request-id", call.requestId);
      try {
        await gemini.authorize(headers);
      } catch (error) {
        const message = error instanceof TokenError ? error.message : "the Vertex AI access token could not be obtained";
        return openAiError(502, message, { code: "upstream_auth_failed" });
      }
      const upstream = await fetch(gemini.urlFor(request.model, method), { method: "POST", headers, body: JSON.stringify(request.body), signal: call.signal, streams: call.streams });
      if (!upstream.ok) return fromGeminiError(upstream, gemini.secret);
      const chatId = `chatcmpl-${call.requestId}`;
      const created = Math.floor(Date.now() / 1000);
      if (request.stream) {
        if (upstream.body === null) return openAiError(502, "Gemini sent an empty stream", { code: "upstream_error" });
        const body = toChatCompletionStream(upstream.body, request.model, chatId, created);
        return new Response(body, { status: 200, headers: { "content-type": "text/event-stream", "cache-control": "no-cache" } });
      }
      let answer: unknown;
      try {
        answer = await upstream.json();
      } catch {
        return openAiError(502, "Gemini sent a body that is not JSON", { code: "upstream_error" });
      }
      if (typeof answer !== "object" || answer === null) return openAiError(502, "Gemini sent a body that is not a JSON object", { code: "upstream_error" });
      const completion = toChatCompletion(answer as Record<string, unknown>, request.model, chatId, created);
      return new Response(JSON.stringify(completion), { status: 200, headers: { "content-type": "application/json" } });
    },
  };
}
