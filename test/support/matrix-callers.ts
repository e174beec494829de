import Anthropic from "@anthropic-ai/sdk";
import assert from "node:assert/strict";
import OpenAI from "openai";
import type { Usage } from "../../src/shared/usage.ts";
import { offersTool, PROMPTS, TOOL, TOOL_TURN, type Content, type Mode } from "./matrix-providers.ts";
import { PNG_BASE64, PNG_DATA_URL } from "./png-fixture.ts";
import { TEST_KEY } from "./relay-harness.ts";

/**
 * The callers of the translation matrix: the official `openai` and `@anthropic-ai/sdk` clients,
 * each making a cell's call (JSON or stream; plain text, a tool, an image, a tool's result) and
 * reporting what its user reads from the answer, in the caller's own vocabulary.
 */

/** What a caller got back. */
export interface Observed {
  readonly text: string;
  /** The first tool call: its name, its input parsed, and (streams) the argument fragments joined. */
  readonly tool: { name: string; input: unknown; streamedArgs: string | undefined } | undefined;
  /** finish_reason (OpenAI) or stop_reason (Anthropic). */
  readonly finish: string | null;
  /** The usage fields as the caller's format names them. */
  readonly usage: Record<string, number>;
  readonly requestId: string;
}

/** What the caller's client raised for an error answer. */
export interface ObservedError {
  readonly status: number | undefined;
  /** The envelope's error type (OpenAI `error.type`, Anthropic `error.error.type`). */
  readonly type: string | undefined;
  readonly message: string;
  readonly requestId: string;
}

export interface Caller {
  readonly name: string;
  /** The wire format it speaks. */
  readonly wire: "openai" | "anthropic";
  /** The finish reason of a text answer and of a tool call, in the caller's vocabulary. */
  readonly finish: { readonly text: string; readonly tools: string };
  /** The usage a booked provider usage must show in the caller's fields. */
  usageOf(booked: Usage): Record<string, number>;
  call(relayUrl: string, model: string, content: Content, mode: Mode): Promise<Observed>;
  /** Makes a call of `prompt` to `model` that the provider answers with an error. */
  fail(relayUrl: string, model: string, prompt: string, mode: Mode): Promise<ObservedError>;
}

/** A caller that also reads a stream the provider cuts mid-event. */
export interface CuttingCaller extends Caller {
  /** Streams `prompt` from `model`, whose provider cuts the stream mid-event; asserts the client's stream fails. */
  cut(relayUrl: string, model: string, prompt: string): Promise<{ requestId: string }>;
}

/** The SDK error `attempt` rejects with, as an ObservedError; anything else is rethrown. */
async function raised<E extends Error & { status: number | undefined; headers: Headers | undefined }>(attempt: Promise<unknown>, kind: abstract new (...args: never[]) => E, typeOf: (error: E) => string | undefined): Promise<ObservedError> {
  const error = await attempt.then(
    () => {
      throw new Error("the call succeeded");
    },
    (caught: unknown) => caught,
  );
  if (!(error instanceof kind)) throw error;
  return { status: error.status, type: typeOf(error), message: error.message, requestId: error.headers?.get("x-request-id") ?? "" };
}

const openAiClient = (relayUrl: string) => new OpenAI({ apiKey: TEST_KEY, baseURL: `${relayUrl}/v1`, maxRetries: 0, timeout: 10_000 });
const anthropicClient = (relayUrl: string) => new Anthropic({ apiKey: TEST_KEY, baseURL: relayUrl, maxRetries: 0, timeout: 10_000 });
const writes = (usage: Usage): number => (usage.cacheWrite5mTokens ?? 0) + (usage.cacheWrite1hTokens ?? 0);

export const OPENAI_CALLER: CuttingCaller = {
  name: "OpenAI SDK",
  wire: "openai",
  finish: { text: "stop", tools: "tool_calls" },
  usageOf: (booked) => ({ prompt_tokens: booked.inputTokens + booked.cachedInputTokens, cached_tokens: booked.cachedInputTokens, completion_tokens: booked.outputTokens }),
  async call(relayUrl, model, content, mode) {
    const client = openAiClient(relayUrl);
    const userContent: OpenAI.ChatCompletionContentPart[] | string = content === "images" ? [{ type: "text", text: PROMPTS.images }, { type: "image_url", image_url: { url: PNG_DATA_URL } }] : PROMPTS[content];
    const messages: OpenAI.ChatCompletionMessageParam[] = [{ role: "user", content: userContent }];
    if (content === "tool result") {
      messages.push(
        { role: "assistant", content: null, tool_calls: [{ id: TOOL_TURN.id, type: "function", function: { name: TOOL.name, arguments: JSON.stringify(TOOL_TURN.input) } }] },
        { role: "tool", tool_call_id: TOOL_TURN.id, content: TOOL_TURN.result },
      );
    }
    const body = { model, max_tokens: 64, messages, ...(offersTool(content) ? { tools: [{ type: "function" as const, function: TOOL }] } : {}) };
    const usageOf = (usage: OpenAI.CompletionUsage | undefined | null) => ({ prompt_tokens: usage?.prompt_tokens ?? -1, cached_tokens: usage?.prompt_tokens_details?.cached_tokens ?? -1, completion_tokens: usage?.completion_tokens ?? -1 });
    if (mode === "json") {
      const { data, response } = await client.chat.completions.create(body).withResponse();
      const choice = data.choices[0]!;
      const call = choice.message.tool_calls?.[0];
      return {
        text: choice.message.content ?? "",
        tool: call?.type === "function" ? { name: call.function.name, input: JSON.parse(call.function.arguments), streamedArgs: undefined } : undefined,
        finish: choice.finish_reason,
        usage: usageOf(data.usage),
        requestId: response.headers.get("x-request-id")!,
      };
    }
    const { data: stream, response } = await client.chat.completions.create({ ...body, stream: true, stream_options: { include_usage: true } }).withResponse();
    let text = "";
    let name: string | undefined;
    let args: string | undefined;
    let finish: string | null = null;
    let usage: OpenAI.CompletionUsage | undefined;
    for await (const chunk of stream) {
      const choice = chunk.choices[0];
      text += choice?.delta.content ?? "";
      for (const call of choice?.delta.tool_calls ?? []) {
        name = (name ?? "") + (call.function?.name ?? "");
        args = (args ?? "") + (call.function?.arguments ?? "");
      }
      finish = choice?.finish_reason ?? finish;
      usage = chunk.usage ?? usage;
    }
    return {
      text,
      tool: name === undefined ? undefined : { name, input: JSON.parse(args ?? ""), streamedArgs: args },
      finish,
      usage: usageOf(usage),
      requestId: response.headers.get("x-request-id")!,
    };
  },
  async cut(relayUrl, model, prompt) {
    const { data: stream, response } = await openAiClient(relayUrl).chat.completions.create({ model, max_tokens: 20, messages: [{ role: "user", content: prompt }], stream: true }).withResponse();
    await assert.rejects(async () => {
      for await (const _chunk of stream);
    }, "the client's stream fails");
    return { requestId: response.headers.get("x-request-id")! };
  },
  fail: (relayUrl, model, prompt, mode) =>
    raised(openAiClient(relayUrl).chat.completions.create({ model, max_tokens: 8, messages: [{ role: "user", content: prompt }], stream: mode === "stream" }), OpenAI.APIError, (error) => error.type),
};

export const ANTHROPIC_CALLER: CuttingCaller = {
  name: "Anthropic SDK",
  wire: "anthropic",
  finish: { text: "end_turn", tools: "tool_use" },
  usageOf: (booked) => ({
    input_tokens: booked.inputTokens - writes(booked),
    cache_read_input_tokens: booked.cachedInputTokens,
    cache_creation_input_tokens: writes(booked),
    output_tokens: booked.outputTokens,
  }),
  async call(relayUrl, model, content, mode) {
    const client = anthropicClient(relayUrl);
    const userContent: Anthropic.ContentBlockParam[] | string = content === "images" ? [{ type: "text", text: PROMPTS.images }, { type: "image", source: { type: "base64", media_type: "image/png", data: PNG_BASE64 } }] : PROMPTS[content];
    const messages: Anthropic.MessageParam[] = [{ role: "user", content: userContent }];
    if (content === "tool result") {
      messages.push(
        { role: "assistant", content: [{ type: "tool_use", id: TOOL_TURN.id, name: TOOL.name, input: TOOL_TURN.input }] },
        { role: "user", content: [{ type: "tool_result", tool_use_id: TOOL_TURN.id, content: TOOL_TURN.result }] },
      );
    }
    const body: Anthropic.MessageCreateParamsNonStreaming = {
      model,
      max_tokens: 64,
      messages,
      ...(offersTool(content) ? { tools: [{ name: TOOL.name, description: TOOL.description, input_schema: TOOL.parameters as Anthropic.Tool.InputSchema }] } : {}),
    };
    let message: Anthropic.Message;
    let response: Response;
    let streamedArgs: string | undefined;
    if (mode === "json") ({ data: message, response } = await client.messages.create(body).withResponse());
    else {
      const stream = client.messages.stream(body);
      for await (const event of stream) {
        if (event.type === "content_block_delta" && event.delta.type === "input_json_delta") streamedArgs = (streamedArgs ?? "") + event.delta.partial_json;
      }
      message = await stream.finalMessage();
      ({ response } = await stream.withResponse());
    }
    const toolUse = message.content.find((block) => block.type === "tool_use");
    return {
      text: message.content.map((block) => (block.type === "text" ? block.text : "")).join(""),
      tool: toolUse === undefined ? undefined : { name: toolUse.name, input: toolUse.input, streamedArgs },
      finish: message.stop_reason,
      usage: {
        input_tokens: message.usage.input_tokens,
        cache_read_input_tokens: message.usage.cache_read_input_tokens ?? -1,
        cache_creation_input_tokens: message.usage.cache_creation_input_tokens ?? -1,
        output_tokens: message.usage.output_tokens,
      },
      requestId: response.headers.get("x-request-id")!,
    };
  },
  async cut(relayUrl, model, prompt) {
    const { data: stream, response } = await anthropicClient(relayUrl).messages.create({ model, max_tokens: 20, messages: [{ role: "user", content: prompt }], stream: true }).withResponse();
    await assert.rejects(async () => {
      for await (const _event of stream);
    }, "the client's stream fails");
    return { requestId: response.headers.get("x-request-id")! };
  },
  fail: (relayUrl, model, prompt, mode) =>
    raised(anthropicClient(relayUrl).messages.create({ model, max_tokens: 8, messages: [{ role: "user", content: prompt }], stream: mode === "stream" }), Anthropic.APIError, (error) => (error.error as { error?: { type?: string } } | undefined)?.error?.type),
};
