import type { WireFormat } from "../../shared/usage.ts";
import { anthropicToOpenAiRequest } from "../openai/anthropic-to-openai-request.ts";
import { anthropicToOpenAiError, anthropicToOpenAiResponse } from "../anthropic/openai-to-anthropic-response.ts";
import { anthropicToOpenAiStream } from "../anthropic/openai-to-anthropic-stream.ts";
import { openAiToAnthropicRequest } from "../anthropic/openai-to-anthropic-request.ts";
import type { RequestTranslation } from "./request-translation.ts";
import { openAiToAnthropicError, openAiToAnthropicResponse } from "../openai/anthropic-to-openai-response.ts";
import { openAiToAnthropicStream } from "../openai/anthropic-to-openai-stream.ts";

type Json = Record<string, unknown>;

/** One direction of translation: the caller's route to the provider's, and back. */
export interface WireTranslation {
  readonly callerWire: WireFormat;
  /** The caller route translated (others are refused). */
  readonly callerPath: string;
  /** The provider route called instead. */
  readonly providerPath: string;
  request(body: Json, options: RequestTranslation): Json;
  response(body: Json, created: number): Json;
  stream(created: number): TransformStream<Uint8Array, Uint8Array>;
  error(body: unknown, status: number): Json;
  /** A refusal of Renio's own (an untranslatable parameter) in the caller's envelope. */
  refusal(message: string, param: string | null): Json;
}

/** OpenAI chat/completions callers, Anthropic Messages providers. */
export const OPENAI_TO_ANTHROPIC: WireTranslation = {
  callerWire: "openai",
  callerPath: "/v1/chat/completions",
  providerPath: "/v1/messages",
  request: openAiToAnthropicRequest,
  response: anthropicToOpenAiResponse,
  stream: anthropicToOpenAiStream,
  error: (body) => anthropicToOpenAiError(body),
  refusal: (message, param) => ({ error: { message, type: "invalid_request_error", param, code: "untranslatable_parameter" } }),
};

/** Anthropic Messages callers, OpenAI chat/completions providers. */
export const ANTHROPIC_TO_OPENAI: WireTranslation = {
  callerWire: "anthropic",
  callerPath: "/v1/messages",
  providerPath: "/v1/chat/completions",
  request: anthropicToOpenAiRequest,
  response: (body) => openAiToAnthropicResponse(body),
  stream: () => openAiToAnthropicStream(),
  error: openAiToAnthropicError,
  refusal: (message) => ({ type: "error", error: { type: "invalid_request_error", message } }),
};
