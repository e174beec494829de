import { regionLabelOf } from "../../config/bedrock-schema.ts";
import type { ProviderConfig } from "../../config/config-schema.ts";
import { endpointOf, joinUrl } from "../http-provider.ts";
import type { Fetch, Provider, UpstreamCall } from "../provider.ts";
import { openAiError } from "../translation/openai-error.ts";
import { bedrockErrorResponse } from "./bedrock-errors.ts";
import { UntranslatableError } from "../translation/request-translation.ts";
import { toConverse } from "./openai-to-bedrock-request.ts";
import { toChatCompletion } from "./openai-to-bedrock-response.ts";
import { converseStreamToSse } from "./openai-to-bedrock-stream.ts";
import { signV4, type AwsCredentials } from "./sigv4.ts";

type BedrockConfig = Extract<ProviderConfig, { type: "bedrock" }>;

const decoder = new TextDecoder();
const encoder = new TextEncoder();

/**
 * AWS Bedrock behind the OpenAI chat/completions wire: the OpenAI body is translated to a
 * Converse (or ConverseStream) request, SigV4-signed, and the answer translated back (JSON, or
 * chat.completion.chunk SSE from the binary event stream) so the OpenAI usage tap books it.
 */
export function createBedrockProvider(id: string, config: BedrockConfig, fetch: Fetch, now = () => new Date()): Provider {
  const baseUrl = config.baseUrl ?? `https://bedrock-runtime.${config.awsRegion}.amazonaws.com`;
  const credentials: AwsCredentials = {
    accessKeyId: config.accessKeyId,
    secretAccessKey: config.secretAccessKey,
    ...(config.sessionToken ? { sessionToken: config.sessionToken } : {}),
  };
  return {
    id,
    region: config.region ?? regionLabelOf(config.awsRegion),
    wires: new Set(["openai"]),
    connectTimeoutMs: config.connectTimeoutMs,
    firstByteTimeoutMs: config.firstByteTimeoutMs,
    endpoint: endpointOf(baseUrl),
    async send(call: UpstreamCall): Promise<Response> {
      if (call.route.path !== "/v1/chat/completions") {
        return openAiError(404, `Bedrock provider \`${id}\` serves only /v1/chat/completions, not ${call.route.path}`);
      }
      let converse;
      try {
        converse = toConverse(JSON.parse(decoder.decode(call.body)));
      } catch (error) {
        if (error instanceof UntranslatableError) return openAiError(400, error.message, { param: error.param, code: "unsupported_parameter" });
        if (error instanceof SyntaxError) return openAiError(400, "the request body is not valid JSON");
        throw error;
      }
      const url = new URL(joinUrl(baseUrl, `/model/${encodeURIComponent(converse.modelId)}/${converse.stream ? "converse-stream" : "converse"}`));
      const body = encoder.encode(JSON.stringify(converse.body));
      const headers: Record<string, string> = { "content-type": "application/json", accept: converse.stream ? "application/vnd.amazon.eventstream" : "application/json" };
      const signed = await signV4({ method: "POST", url, headers, body, region: config.awsRegion, service: "bedrock", now: now() }, credentials);
      const response = await fetch(url.href, {
        method: "POST",
        headers: { ...headers, ...signed, "x-request-id": call.requestId },
        body,
        signal: call.signal,
        streams: call.streams,
      });
      if (!response.ok) return bedrockErrorResponse(response);
      const chatId = `chatcmpl-${call.requestId}`;
      if (!converse.stream) {
        let completion;
        try {
          completion = toChatCompletion(await response.json(), converse.modelId, chatId);
        } catch {
          return openAiError(502, "Bedrock answer is malformed: not a Converse response", { code: "upstream_malformed" });
        }
        return Response.json(completion, { status: 200 });
      }
      if (response.body === null) return openAiError(502, "Bedrock stream answer has no body", { code: "upstream_malformed" });
      const sse = response.body.pipeThrough(converseStreamToSse({ id: chatId, model: converse.modelId, includeUsage: converse.includeUsage }));
      return new Response(sse, { status: 200, headers: { "content-type": "text/event-stream", "cache-control": "no-cache" } });
    },
  };
}
