import { createAnthropic } from "@ai-sdk/anthropic";
import { createOpenAI } from "@ai-sdk/openai";
import { APICallError, generateText, jsonSchema, streamText, tool, type LanguageModel, type LanguageModelUsage, type ModelMessage } from "ai";
import type { Caller, Observed, ObservedError } from "./matrix-callers.ts";
import { offersTool, PROMPTS, TOOL, TOOL_TURN, type Content, type Mode } from "./matrix-providers.ts";
import { PNG_BASE64 } from "./png-fixture.ts";
import { TEST_KEY } from "./relay-harness.ts";

/**
 * The Vercel `ai` SDK as a caller of the translation matrix: `generateText` (JSON) and
 * `streamText` (stream) through `@ai-sdk/openai` (chat completions, baseURL at Renio) or
 * `@ai-sdk/anthropic` (Messages, baseURL at Renio), reporting what its user reads.
 */

const PNG_BYTES = Uint8Array.from(atob(PNG_BASE64), (c) => c.charCodeAt(0));

function messagesFor(content: Content): ModelMessage[] {
  if (content === "images") return [{ role: "user", content: [{ type: "text", text: PROMPTS.images }, { type: "file", data: PNG_BYTES, mediaType: "image/png" }] }];
  if (content !== "tool result") return [{ role: "user", content: PROMPTS[content] }];
  return [
    { role: "user", content: PROMPTS[content] },
    { role: "assistant", content: [{ type: "tool-call", toolCallId: TOOL_TURN.id, toolName: TOOL.name, input: TOOL_TURN.input }] },
    { role: "tool", content: [{ type: "tool-result", toolCallId: TOOL_TURN.id, toolName: TOOL.name, output: { type: "text", value: TOOL_TURN.result } }] },
  ];
}

const toolsFor = (content: Content) => (offersTool(content) ? { tools: { [TOOL.name]: tool({ description: TOOL.description, inputSchema: jsonSchema<{ city: string }>(TOOL.parameters as never) }) } } : {});

async function call(model: LanguageModel, content: Content, mode: Mode, usageOf: (usage: LanguageModelUsage) => Record<string, number>): Promise<Observed> {
  const request = { model, messages: messagesFor(content), maxOutputTokens: 64, maxRetries: 0, ...toolsFor(content) };
  if (mode === "json") {
    const result = await generateText(request);
    const call = result.toolCalls[0];
    return {
      text: result.text,
      tool: call === undefined ? undefined : { name: call.toolName, input: call.input, streamedArgs: undefined },
      finish: result.finishReason,
      usage: usageOf(result.usage),
      requestId: result.response.headers?.["x-request-id"] ?? "",
    };
  }
  const result = streamText(request);
  let streamedArgs: string | undefined;
  for await (const part of result.fullStream) {
    if (part.type === "tool-input-delta") streamedArgs = (streamedArgs ?? "") + part.delta;
    if (part.type === "error") throw part.error;
  }
  const call = (await result.toolCalls)[0];
  return {
    text: await result.text,
    tool: call === undefined ? undefined : { name: call.toolName, input: call.input, streamedArgs },
    finish: await result.finishReason,
    usage: usageOf(await result.usage),
    requestId: (await result.response).headers?.["x-request-id"] ?? "",
  };
}

/** The error type of an error body (`error.type` in OpenAI's envelope and in Anthropic's). */
const errorTypeOf = (body: unknown): string | undefined => (body as { error?: { type?: string } } | null)?.error?.type;

/** A call the provider answers with an error: the `APICallError` the SDK raised. */
async function fail(model: LanguageModel, prompt: string, mode: Mode): Promise<ObservedError> {
  const request = { model, prompt, maxOutputTokens: 8, maxRetries: 0 };
  let error: unknown;
  try {
    if (mode === "json") await generateText(request);
    else for await (const part of streamText({ ...request, onError: () => {} }).fullStream) if (part.type === "error") throw part.error;
    error = new Error("the call succeeded");
  } catch (caught) {
    error = caught;
  }
  if (!APICallError.isInstance(error)) throw error;
  return { status: error.statusCode, type: errorTypeOf(JSON.parse(error.responseBody ?? "null")), message: error.message, requestId: error.responseHeaders?.["x-request-id"] ?? "" };
}

const openAiModel = (relayUrl: string, model: string) => createOpenAI({ baseURL: `${relayUrl}/v1`, apiKey: TEST_KEY }).chat(model);
const anthropicModel = (relayUrl: string, model: string) => createAnthropic({ baseURL: `${relayUrl}/v1`, apiKey: TEST_KEY }).messages(model);

const usageFields = (usage: LanguageModelUsage) => ({
  inputTokens: usage.inputTokens ?? -1,
  cacheReadTokens: usage.inputTokenDetails.cacheReadTokens ?? -1,
  outputTokens: usage.outputTokens ?? -1,
});

/** `@ai-sdk/openai`'s chat model (chat/completions) with its baseURL at Renio's `/v1`. */
export const VERCEL_OPENAI_CALLER: Caller = {
  name: "Vercel ai SDK (@ai-sdk/openai chat)",
  wire: "openai",
  finish: { text: "stop", tools: "tool-calls" },
  usageOf: (booked) => ({ inputTokens: booked.inputTokens + booked.cachedInputTokens, cacheReadTokens: booked.cachedInputTokens, outputTokens: booked.outputTokens }),
  call: (relayUrl, model, content, mode) => call(openAiModel(relayUrl, model), content, mode, usageFields),
  fail: (relayUrl, model, prompt, mode) => fail(openAiModel(relayUrl, model), prompt, mode),
};

/** `@ai-sdk/anthropic` (Messages) with its baseURL at Renio's `/v1`. */
export const VERCEL_ANTHROPIC_CALLER: Caller = {
  name: "Vercel ai SDK (@ai-sdk/anthropic)",
  wire: "anthropic",
  finish: { text: "stop", tools: "tool-calls" },
  usageOf: (booked) => ({
    inputTokens: booked.inputTokens + booked.cachedInputTokens,
    cacheReadTokens: booked.cachedInputTokens,
    cacheWriteTokens: (booked.cacheWrite5mTokens ?? 0) + (booked.cacheWrite1hTokens ?? 0),
    outputTokens: booked.outputTokens,
  }),
  call: (relayUrl, model, content, mode) =>
    call(anthropicModel(relayUrl, model), content, mode, (usage) => ({
      ...usageFields(usage),
      cacheWriteTokens: usage.inputTokenDetails.cacheWriteTokens ?? -1,
    })),
  fail: (relayUrl, model, prompt, mode) => fail(anthropicModel(relayUrl, model), prompt, mode),
};
