import { callText, dataFrame, type MockCall, type MockReply } from "./mock-call.ts";
import type { MockFrame } from "./mock-stream.ts";

const DONE: MockFrame = { text: "data: [DONE]\n\n", paced: false };

function chatUsageJson(call: MockCall): string {
  return (
    `{"prompt_tokens":${call.inputTokens},"completion_tokens":${call.outputTokens},` +
    `"total_tokens":${call.inputTokens + call.outputTokens},` +
    `"prompt_tokens_details":{"cached_tokens":0,"audio_tokens":0},` +
    `"completion_tokens_details":{"reasoning_tokens":0,"audio_tokens":0,"accepted_prediction_tokens":0,"rejected_prediction_tokens":0}}`
  );
}

function includeUsage(call: MockCall): boolean {
  const options = call.body["stream_options"];
  return typeof options === "object" && options !== null && (options as Record<string, unknown>)["include_usage"] === true;
}

/** `POST /v1/chat/completions`: a `chat.completion`, or `chat.completion.chunk` events ending in `[DONE]`. */
export function chatCompletion(call: MockCall): MockReply {
  const text = callText(call);
  const head = `{"id":"chatcmpl-${call.id}","object":"chat.completion","created":${call.created},"model":${call.modelJson}`;
  if (!call.stream) {
    const body =
      `${head},"choices":[{"index":0,"message":{"role":"assistant","content":${text.textJson},"refusal":null,"annotations":[]},` +
      `"logprobs":null,"finish_reason":"stop"}],"usage":${chatUsageJson(call)},"service_tier":"default","system_fingerprint":null}`;
    return { kind: "json", body };
  }
  const usage = includeUsage(call);
  const chunk = `{"id":"chatcmpl-${call.id}","object":"chat.completion.chunk","created":${call.created},"model":${call.modelJson},"service_tier":"default","system_fingerprint":null,"choices":`;
  const tail = usage ? `,"usage":null}` : "}";
  const frames: MockFrame[] = [
    dataFrame(`${chunk}[{"index":0,"delta":{"role":"assistant","content":"","refusal":null},"logprobs":null,"finish_reason":null}]${tail}`, false),
  ];
  text.deltaJson.forEach((delta, i) => {
    frames.push(dataFrame(`${chunk}[{"index":0,"delta":{"content":${delta}},"logprobs":null,"finish_reason":null}]${tail}`, i > 0));
  });
  frames.push(dataFrame(`${chunk}[{"index":0,"delta":{},"logprobs":null,"finish_reason":"stop"}]${tail}`, false));
  if (usage) frames.push(dataFrame(`${chunk}[],"usage":${chatUsageJson(call)}}`, false));
  frames.push(DONE);
  return { kind: "stream", frames };
}

/** `POST /v1/completions` (legacy): a `text_completion`, or its chunks ending in `[DONE]`. */
export function textCompletion(call: MockCall): MockReply {
  const text = callText(call);
  const head = `{"id":"cmpl-${call.id}","object":"text_completion","created":${call.created},"model":${call.modelJson},"system_fingerprint":null,"choices":`;
  const usageJson = `{"prompt_tokens":${call.inputTokens},"completion_tokens":${call.outputTokens},"total_tokens":${call.inputTokens + call.outputTokens}}`;
  if (!call.stream) {
    return {
      kind: "json",
      body: `${head}[{"text":${text.textJson},"index":0,"logprobs":null,"finish_reason":"stop"}],"usage":${usageJson}}`,
    };
  }
  const usage = includeUsage(call);
  const tail = usage ? `,"usage":null}` : "}";
  const frames: MockFrame[] = text.deltaJson.map((delta, i) =>
    dataFrame(`${head}[{"text":${delta},"index":0,"logprobs":null,"finish_reason":null}]${tail}`, i > 0),
  );
  frames.push(dataFrame(`${head}[{"text":"","index":0,"logprobs":null,"finish_reason":"stop"}]${tail}`, false));
  if (usage) frames.push(dataFrame(`${head}[],"usage":${usageJson}}`, false));
  frames.push(DONE);
  return { kind: "stream", frames };
}

/** Vector length of mock embeddings unless the request sets `dimensions`. */
export const DEFAULT_EMBEDDING_DIMENSIONS = 8;

/** `POST /v1/embeddings`: one small vector per input; `encoding_format: "base64"` gives little-endian float32. */
export function embeddings(call: MockCall): MockReply {
  const input = call.body["input"];
  const count = Array.isArray(input) && input.length > 0 && typeof input[0] !== "number" ? input.length : 1;
  const requested = call.body["dimensions"];
  const dimensions =
    typeof requested === "number" && Number.isInteger(requested) && requested > 0 ? Math.min(requested, 4096) : DEFAULT_EMBEDDING_DIMENSIONS;
  const base64 = call.body["encoding_format"] === "base64";
  const data: string[] = [];
  for (let i = 0; i < count; i++) {
    const vector = new Float32Array(dimensions);
    for (let d = 0; d < dimensions; d++) vector[d] = Math.fround(Math.sin(i + d + 1) / 2);
    const embedding = base64 ? JSON.stringify(bytesToBase64(new Uint8Array(vector.buffer))) : `[${vector.join(",")}]`;
    data.push(`{"object":"embedding","index":${i},"embedding":${embedding}}`);
  }
  return {
    kind: "json",
    body: `{"object":"list","data":[${data.join(",")}],"model":${call.modelJson},"usage":{"prompt_tokens":${call.inputTokens},"total_tokens":${call.inputTokens}}}`,
  };
}

/** Model ids `GET /v1/models` lists. */
export const MOCK_MODEL_IDS = ["mock-model", "mock-gpt", "mock-claude"] as const;

/** `GET /v1/models`. */
export function modelList(): string {
  const data = MOCK_MODEL_IDS.map((id) => ({ id, object: "model", created: 1_700_000_000, owned_by: "renio-mock" }));
  return JSON.stringify({ object: "list", data });
}

function bytesToBase64(bytes: Uint8Array): string {
  let binary = "";
  for (const byte of bytes) binary += String.fromCharCode(byte);
  return btoa(binary);
}
