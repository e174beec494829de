import { createPriceBook, type Price } from "../../src/pricing/price-book.ts";
import type { Usage } from "../../src/shared/usage.ts";
import { ANTHROPIC_TEXT, ANTHROPIC_TOOL_ARGS, ANTHROPIC_USAGE, anthropicAnswer } from "./anthropic-upstream.ts";
import { BEDROCK_USAGE, startBedrockUpstream } from "./bedrock-upstream.ts";
import { GEMINI_TEXT, GEMINI_TOOL_ARGS, GEMINI_USAGE, scriptedGeminiAnswer, startGeminiUpstream } from "./gemini-upstream.ts";
import { OPENAI_TEXT, OPENAI_TOOL_ARGS, OPENAI_USAGE, openAiAnswer } from "./openai-upstream.ts";
import { PNG_BASE64, PNG_DATA_URL } from "./png-fixture.ts";
import { startAnsweringUpstream, type ScriptedUpstream } from "./scripted-upstream.ts";

/**
 * The provider families of the translation matrix (test/e2e/providers/translation-matrix.test.ts), each a
 * scripted upstream in its real wire format plus what a call through it must show: the text
 * and tool call it answers, the usage its own fields price to, and where the caller's image
 * lands in its request.
 */

type Json = Record<string, unknown>;

/** What a cell sends: plain text, a tool to call, an image to describe, or a tool's result (a second turn, the tool still offered). */
export type Content = "plain" | "tools" | "images" | "tool result";
export type Mode = "json" | "stream";

/** The user's words in each kind of cell. */
export const PROMPTS: Readonly<Record<Content, string>> = { plain: "Say hi", tools: "Weather in Paris?", images: "What is this?", "tool result": "Weather in Paris?" };
/** Whether a cell offers TOOL. */
export const offersTool = (content: Content): boolean => content === "tools" || content === "tool result";

/** The tool every cell offers (each scripted upstream calls the first tool it is given). */
export const TOOL = { name: "get_weather", description: "Weather in a city", parameters: { type: "object", properties: { city: { type: "string" } }, required: ["city"] } };
/** The earlier turn a "tool result" cell sends: the assistant's call of TOOL, and what the tool answered. */
export const TOOL_TURN = { id: "call_7", input: { city: "Paris" }, result: "18°C, sunny" };

/** A tool call and its result as a provider received them (`id`: what links the result to the call; Gemini links by name). */
export interface ToolTurn {
  readonly call: { readonly id: string | undefined; readonly name: unknown; readonly input: unknown };
  readonly result: { readonly id: unknown; readonly text: unknown };
}

/** One request as a family's upstream received it. */
export interface Received {
  readonly path: string;
  readonly body: Json;
}

/** The families, in the order startFamilies returns them. */
export const FAMILY_NAMES = ["OpenAI", "Anthropic", "Gemini", "Bedrock", "Azure"] as const;
export type FamilyName = (typeof FAMILY_NAMES)[number];

/** The caller format Renio relays to each family byte for byte, untranslated (undefined: every call is translated). */
export const PASSTHROUGH: Readonly<Record<FamilyName, "openai" | "anthropic" | undefined>> = { OpenAI: "openai", Anthropic: "anthropic", Gemini: undefined, Bedrock: undefined, Azure: "openai" };

/** One provider family behind Renio. */
export interface ProviderFamily {
  readonly name: FamilyName;
  /** The scripted upstream's base URL. */
  readonly url: string;
  /** The Renio model (a target with `translate: true`). */
  readonly model: string;
  /** What the provider answers to plain text and to an image. */
  text(content: "plain" | "images"): string;
  /** The tool call's arguments exactly as the provider's stream carries them. */
  readonly toolArgs: string;
  /** The usage the provider's own fields report, normalized as the journal books it. */
  readonly booked: Usage;
  /** The price the provider's usage is charged at (its upstream model's). */
  readonly price: Price;
  /** The path a call of `mode` reaches. */
  path(mode: Mode): string;
  /** Every request the upstream received, in order. */
  received(): Received[];
  /** A call the provider answers with an error: the model and prompt to send, its status and message. */
  readonly failure: { readonly model: string; readonly prompt: string; readonly status: number; readonly message: RegExp };
  /** A stream the provider cuts in the middle of an event: the model and prompt to send. */
  readonly cut: { readonly model: string; readonly prompt: string };
  /** The earlier tool call and its result in a request, read from this provider's shape. */
  toolTurnOf(body: Json): ToolTurn;
  /** Whether the provider links a result to its call by id (else by the function's name). */
  readonly linksById: boolean;
  /** The caller's PNG as it must arrive in this provider's request. */
  readonly image: unknown;
  /** The first image part of a request, in this provider's shape. */
  imageOf(body: Json): unknown;
  stop(): Promise<void>;
}

/** The families with the relay config sections (`providers`, `models`) serving them. */
export interface Families {
  readonly all: readonly ProviderFamily[];
  get(name: FamilyName): ProviderFamily;
  readonly config: { providers: Json; models: Json; prices: Json };
  stop(): Promise<void>;
}

const prices = createPriceBook(new Map());
const priceOf = (model: string): Price => prices.priceOf(model)!;
const AWS = { accessKeyId: "AKIDMATRIXTEST01", secretAccessKey: "matrix-aws-secret-1a2b3c", sessionToken: "matrix-session-4d5e" };
const BEDROCK_MODEL = "eu.anthropic.claude-3-5-sonnet-20240620-v1:0";
/** Model ids the scripted Bedrock answers with a ThrottlingException, and with a stream whose third frame fails its checksum. */
const BEDROCK_THROTTLED = "eu.anthropic.claude-3-5-sonnet-throttle-v1:0";
const BEDROCK_BAD_CRC = "eu.anthropic.claude-3-5-sonnet-badcrc-v1:0";
const AZURE_DEPLOYMENT = "gpt-4o-mini";

const parts = (body: Json, list: string, field: string): Json[] => ((body[list] as Json[] | undefined) ?? []).flatMap((m) => (Array.isArray(m[field]) ? (m[field] as Json[]) : []));
const textOf = (content: unknown): unknown => (Array.isArray(content) ? content.map((part: Json) => part["text"]).join("") : content);
const find = (blocks: Json[], key: string): Json => (blocks.find((block) => key in block)?.[key] as Json | undefined) ?? {};

const receivedBy = (upstream: ScriptedUpstream) => (): Received[] => upstream.bodies.map((body, i) => ({ path: upstream.paths[i]!, body }));

/** A family answering in OpenAI's format (the scripted OpenAI answers), serving `model` (priced as `upstreamModel`) at `path`. */
function openAiFamily(name: FamilyName, upstream: ScriptedUpstream, model: string, upstreamModel: string, path: string): ProviderFamily {
  const cached = OPENAI_USAGE.prompt_tokens_details.cached_tokens;
  return {
    name,
    url: upstream.url,
    model,
    text: () => OPENAI_TEXT,
    toolArgs: OPENAI_TOOL_ARGS,
    booked: { inputTokens: OPENAI_USAGE.prompt_tokens - cached, cachedInputTokens: cached, outputTokens: OPENAI_USAGE.completion_tokens },
    price: priceOf(upstreamModel),
    path: () => path,
    received: receivedBy(upstream),
    failure: { model, prompt: "please fail", status: 400, message: /Invalid value for 'temperature'/ },
    cut: { model, prompt: "cut me" },
    image: { type: "image_url", image_url: { url: PNG_DATA_URL } },
    imageOf: (body) => parts(body, "messages", "content").find((part) => part["type"] === "image_url"),
    toolTurnOf: (body) => {
      const messages = body["messages"] as Json[];
      const call = (messages.find((m) => Array.isArray(m["tool_calls"]))?.["tool_calls"] as Json[] | undefined)?.[0] ?? {};
      const fn = (call["function"] as Json | undefined) ?? {};
      const result = messages.find((m) => m["role"] === "tool") ?? {};
      return { call: { id: call["id"] as string, name: fn["name"], input: JSON.parse(String(fn["arguments"] ?? "null")) }, result: { id: result["tool_call_id"], text: textOf(result["content"]) } };
    },
    linksById: true,
    stop: () => upstream.stop(),
  };
}

/** Starts every family's scripted upstream. */
export async function startFamilies(): Promise<Families> {
  const [openai, anthropic, gemini, bedrock, azure] = await Promise.all([
    startAnsweringUpstream(openAiAnswer),
    startAnsweringUpstream(anthropicAnswer),
    startGeminiUpstream(),
    startBedrockUpstream(AWS, "eu-central-1"),
    startAnsweringUpstream(openAiAnswer),
  ]);
  gemini.answer = scriptedGeminiAnswer;
  const all: ProviderFamily[] = [
    openAiFamily("OpenAI", openai, "gpt-4o", "gpt-4o", "/v1/chat/completions"),
    {
      name: "Anthropic",
      url: anthropic.url,
      model: "claude-sonnet-4-5",
      text: () => ANTHROPIC_TEXT,
      toolArgs: ANTHROPIC_TOOL_ARGS,
      booked: {
        inputTokens: ANTHROPIC_USAGE.input_tokens + ANTHROPIC_USAGE.cache_creation_input_tokens,
        cachedInputTokens: ANTHROPIC_USAGE.cache_read_input_tokens,
        outputTokens: ANTHROPIC_USAGE.output_tokens,
        cacheWrite5mTokens: ANTHROPIC_USAGE.cache_creation.ephemeral_5m_input_tokens,
        cacheWrite1hTokens: ANTHROPIC_USAGE.cache_creation.ephemeral_1h_input_tokens,
      },
      price: priceOf("claude-sonnet-4-5"),
      path: () => "/v1/messages",
      received: receivedBy(anthropic),
      failure: { model: "claude-sonnet-4-5", prompt: "please fail", status: 429, message: /exceeded your rate limit/ },
      cut: { model: "claude-sonnet-4-5", prompt: "cut me" },
      image: { type: "image", source: { type: "base64", media_type: "image/png", data: PNG_BASE64 } },
      imageOf: (body) => parts(body, "messages", "content").find((block) => block["type"] === "image"),
      toolTurnOf: (body) => {
        const blocks = parts(body, "messages", "content");
        const call = blocks.find((block) => block["type"] === "tool_use") ?? {};
        const result = blocks.find((block) => block["type"] === "tool_result") ?? {};
        return { call: { id: call["id"] as string, name: call["name"], input: call["input"] }, result: { id: result["tool_use_id"], text: textOf(result["content"]) } };
      },
      linksById: true,
      stop: () => anthropic.stop(),
    },
    {
      name: "Gemini",
      url: gemini.url,
      model: "gemini-2.5-flash",
      text: () => GEMINI_TEXT,
      toolArgs: JSON.stringify(GEMINI_TOOL_ARGS),
      booked: {
        inputTokens: GEMINI_USAGE.promptTokenCount - GEMINI_USAGE.cachedContentTokenCount,
        cachedInputTokens: GEMINI_USAGE.cachedContentTokenCount,
        outputTokens: GEMINI_USAGE.candidatesTokenCount + GEMINI_USAGE.thoughtsTokenCount,
      },
      price: priceOf("gemini-2.5-flash"),
      path: (mode) => `/v1beta/models/gemini-2.5-flash:${mode === "stream" ? "streamGenerateContent" : "generateContent"}`,
      received: () => gemini.seen.map(({ path, body }) => ({ path, body })),
      failure: { model: "gemini-2.5-flash", prompt: "please fail", status: 429, message: /Resource has been exhausted/ },
      cut: { model: "gemini-2.5-flash", prompt: "cut me" },
      image: { inlineData: { mimeType: "image/png", data: PNG_BASE64 } },
      imageOf: (body) => parts(body, "contents", "parts").find((part) => "inlineData" in part),
      toolTurnOf: (body) => {
        const all = parts(body, "contents", "parts");
        const call = find(all, "functionCall");
        const result = find(all, "functionResponse");
        return { call: { id: undefined, name: call["name"], input: call["args"] }, result: { id: result["name"], text: (result["response"] as Json | undefined)?.["content"] } };
      },
      linksById: false,
      stop: () => gemini.stop(),
    },
    {
      name: "Bedrock",
      url: bedrock.url,
      model: "claude-eu",
      text: (content) => (content === "images" ? "I see a png image." : "Hello from Bedrock."),
      toolArgs: '{"city":"Paris"}',
      booked: {
        inputTokens: BEDROCK_USAGE.inputTokens + BEDROCK_USAGE.cacheWriteInputTokens,
        cachedInputTokens: BEDROCK_USAGE.cacheReadInputTokens,
        outputTokens: BEDROCK_USAGE.outputTokens,
        cacheWrite5mTokens: BEDROCK_USAGE.cacheWriteInputTokens,
      },
      price: priceOf(BEDROCK_MODEL),
      path: (mode) => `/model/${BEDROCK_MODEL}/${mode === "stream" ? "converse-stream" : "converse"}`,
      received: () => bedrock.requests.map((r) => ({ path: `/model/${r.modelId}/${r.stream ? "converse-stream" : "converse"}`, body: r.body })),
      failure: { model: "claude-eu-throttled", prompt: "Hi", status: 429, message: /ThrottlingException: Too many requests/ },
      cut: { model: "claude-eu-badcrc", prompt: "Hi" },
      image: { image: { format: "png", source: { bytes: PNG_BASE64 } } },
      imageOf: (body) => parts(body, "messages", "content").find((block) => "image" in block),
      toolTurnOf: (body) => {
        const blocks = parts(body, "messages", "content");
        const call = find(blocks, "toolUse");
        const result = find(blocks, "toolResult");
        return { call: { id: call["toolUseId"] as string, name: call["name"], input: call["input"] }, result: { id: result["toolUseId"], text: textOf(result["content"]) } };
      },
      linksById: true,
      stop: () => bedrock.stop(),
    },
    openAiFamily("Azure", azure, "gpt-eu", AZURE_DEPLOYMENT, `/openai/deployments/${AZURE_DEPLOYMENT}/chat/completions`),
  ];
  return {
    all,
    get: (name) => all.find((family) => family.name === name)!,
    config: {
      providers: {
        oai: { type: "openai", baseUrl: `${openai.url}/v1`, apiKey: "sk-openai-matrix-secret" },
        claude: { type: "anthropic", baseUrl: anthropic.url, apiKey: "sk-ant-matrix-secret" },
        google: { type: "gemini", baseUrl: gemini.url, apiKey: "AIza-matrix-secret-7c3d", region: "eu" },
        br: { type: "bedrock", awsRegion: "eu-central-1", baseUrl: bedrock.url, ...AWS, firstByteTimeoutMs: 5000 },
        az: { type: "azure", baseUrl: azure.url, apiKey: "azure-matrix-secret", apiVersion: "2024-10-21", location: "swedencentral", region: "eu" },
      },
      models: {
        "gpt-4o": { provider: "oai", translate: true },
        "claude-sonnet-4-5": { provider: "claude", translate: true },
        "gemini-2.5-flash": { provider: "google", translate: true },
        "claude-eu": { provider: "br", model: BEDROCK_MODEL, translate: true },
        "claude-eu-throttled": { provider: "br", model: BEDROCK_THROTTLED, translate: true },
        "claude-eu-badcrc": { provider: "br", model: BEDROCK_BAD_CRC, translate: true },
        "gpt-eu": { provider: "az", model: AZURE_DEPLOYMENT, translate: true },
      },
      prices: { [BEDROCK_THROTTLED]: { input: 3, output: 15, maxOutputTokens: 8192 }, [BEDROCK_BAD_CRC]: { input: 3, output: 15, maxOutputTokens: 8192 } },
    },
    stop: async () => {
      await Promise.all(all.map((family) => family.stop()));
    },
  };
}
