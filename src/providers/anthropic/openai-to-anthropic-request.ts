import { DEFAULT_OUTPUT_RESERVATION } from "../../shared/usage.ts";
import { UntranslatableError, type RequestTranslation } from "../translation/request-translation.ts";

type Json = Record<string, unknown>;

/** Parameters with no effect on the answer's content that Anthropic has no field for: always dropped. */
const IGNORED = new Set(["model", "messages", "stream_options", "n", "user", "store", "metadata", "parallel_tool_calls", "seed", "logit_bias", "service_tier"]);
/** Parameters Anthropic has no equivalent for: a 400 naming them unless `dropUnsupported`. */
const UNSUPPORTED = new Set(["frequency_penalty", "presence_penalty", "logprobs", "top_logprobs", "audio", "modalities", "prediction", "web_search_options", "functions", "function_call", "reasoning_effort"]);

/**
 * An OpenAI chat/completions request as an Anthropic Messages request. System and developer
 * messages become `system`, content parts become blocks (images as base64 or URL sources),
 * tool calls become `tool_use` blocks and tool messages `tool_result` blocks in a user turn.
 */
export function openAiToAnthropicRequest(body: Json, options: RequestTranslation): Json {
  const refuse = (param: string, why: string): void => {
    if (!options.dropUnsupported) throw new UntranslatableError(param, `The parameter \`${param}\` ${why}`);
  };
  const out: Json = { model: body["model"] };
  for (const [key, value] of Object.entries(body)) {
    if (IGNORED.has(key)) continue;
    if (UNSUPPORTED.has(key)) {
      if (value !== null && value !== undefined) refuse(key, "has no equivalent on this model's provider (Anthropic Messages)");
      continue;
    }
    if (!KNOWN.has(key)) refuse(key, "is not known to the OpenAI → Anthropic translation");
  }
  if (typeof body["n"] === "number" && body["n"] !== 1) refuse("n", "must be 1: Anthropic answers with one choice");

  const system: Json[] = [];
  const messages: Json[] = [];
  const push = (role: "user" | "assistant", blocks: Json[]) => {
    const last = messages[messages.length - 1];
    if (last !== undefined && last["role"] === role) (last["content"] as Json[]).push(...blocks);
    else messages.push({ role, content: blocks });
  };
  const list = body["messages"];
  if (!Array.isArray(list)) throw new UntranslatableError("messages", "The parameter `messages` must be an array");
  list.forEach((message: Json, i: number) => {
    const role = message["role"];
    if (role === "system" || role === "developer") system.push(...textBlocks(message["content"], `messages[${i}].content`));
    else if (role === "user") push("user", contentBlocks(message["content"], `messages[${i}].content`));
    else if (role === "assistant") push("assistant", assistantBlocks(message, i));
    else if (role === "tool") push("user", [{ type: "tool_result", tool_use_id: message["tool_call_id"], content: toolResultContent(message["content"], `messages[${i}].content`) }]);
    else throw new UntranslatableError(`messages[${i}].role`, `The parameter \`messages[${i}].role\` (${String(role)}) cannot be translated to Anthropic Messages`);
  });
  if (system.length > 0) out["system"] = system;
  out["messages"] = messages;

  const limit = body["max_completion_tokens"] ?? body["max_tokens"];
  out["max_tokens"] = typeof limit === "number" ? limit : options.outputLimit ?? DEFAULT_OUTPUT_RESERVATION;
  if (body["temperature"] !== undefined && body["temperature"] !== null) out["temperature"] = Math.min(1, body["temperature"] as number);
  if (body["top_p"] !== undefined && body["top_p"] !== null) out["top_p"] = body["top_p"];
  const stop = body["stop"];
  if (typeof stop === "string") out["stop_sequences"] = [stop];
  else if (Array.isArray(stop)) out["stop_sequences"] = stop;
  if (body["stream"] === true) out["stream"] = true;

  const tools = body["tools"];
  if (Array.isArray(tools)) {
    out["tools"] = tools.map((tool: Json, i: number) => {
      const fn = tool["function"] as Json | undefined;
      if (tool["type"] !== "function" || fn === undefined) throw new UntranslatableError(`tools[${i}].type`, `The parameter \`tools[${i}].type\` (${String(tool["type"])}) cannot be translated: only function tools can`);
      const spec: Json = { name: fn["name"], input_schema: fn["parameters"] ?? { type: "object", properties: {} } };
      if (typeof fn["description"] === "string") spec["description"] = fn["description"];
      return spec;
    });
  }
  const choice = body["tool_choice"];
  if (choice !== undefined && choice !== null) {
    const toolChoice = anthropicToolChoice(choice);
    if (toolChoice === undefined) refuse("tool_choice", "has a form Anthropic Messages does not support");
    else {
      if (body["parallel_tool_calls"] === false && toolChoice.type !== "none") toolChoice.disable_parallel_tool_use = true;
      out["tool_choice"] = toolChoice;
    }
  }
  const format = body["response_format"] as Json | undefined;
  if (format !== undefined && format !== null && format["type"] !== "text") {
    if (format["type"] === "json_schema") {
      const schema = (format["json_schema"] as Json | undefined)?.["schema"];
      out["output_format"] = { type: "json_schema", schema };
    } else refuse("response_format", `(${String(format["type"])}) has no equivalent on Anthropic Messages; use json_schema`);
  }
  return out;
}

const KNOWN = new Set(["max_tokens", "max_completion_tokens", "temperature", "top_p", "stop", "stream", "tools", "tool_choice", "response_format"]);

function textBlocks(content: unknown, path: string): Json[] {
  return contentBlocks(content, path).map((block, i) => {
    if (block["type"] !== "text") throw new UntranslatableError(`${path}[${i}]`, `The parameter \`${path}[${i}]\` must be text in a system message`);
    return block;
  });
}

function contentBlocks(content: unknown, path: string): Json[] {
  if (typeof content === "string") return [{ type: "text", text: content }];
  if (content === null || content === undefined) return [];
  if (!Array.isArray(content)) throw new UntranslatableError(path, `The parameter \`${path}\` must be a string or an array of parts`);
  return content.map((part: Json, i: number) => {
    if (part["type"] === "text") return { type: "text", text: part["text"] };
    if (part["type"] === "image_url") return { type: "image", source: imageSource((part["image_url"] as Json)["url"] as string) };
    throw new UntranslatableError(`${path}[${i}].type`, `The parameter \`${path}[${i}].type\` (${String(part["type"])}) cannot be translated to Anthropic Messages`);
  });
}

const DATA_URL = /^data:([^;,]+);base64,/;

/** Anthropic Messages' `tool_choice`: `any` is "some tool" (OpenAI's `required`), `tool` one named function. */
type AnthropicToolChoice = ({ type: "auto" | "any" | "none" } | { type: "tool"; name: unknown }) & { disable_parallel_tool_use?: true };

/** OpenAI's `tool_choice` in Anthropic's terms; undefined for a form Anthropic has no equivalent for. */
function anthropicToolChoice(choice: unknown): AnthropicToolChoice | undefined {
  if (choice === "auto") return { type: "auto" };
  if (choice === "required") return { type: "any" };
  if (choice === "none") return { type: "none" };
  if (typeof choice === "object" && (choice as Json)["type"] === "function") return { type: "tool", name: ((choice as Json)["function"] as Json)["name"] };
  return undefined;
}

/** A data URL's bytes as a base64 source, any other URL as a URL source. */
function imageSource(url: string): Json {
  const match = DATA_URL.exec(url);
  if (match === null) return { type: "url", url };
  return { type: "base64", media_type: match[1], data: url.slice(match[0].length) };
}

function assistantBlocks(message: Json, i: number): Json[] {
  const blocks = contentBlocks(message["content"], `messages[${i}].content`);
  const calls = message["tool_calls"];
  if (Array.isArray(calls)) {
    for (const call of calls as Json[]) {
      const fn = call["function"] as Json;
      const args = fn["arguments"];
      let input: unknown;
      try {
        input = typeof args === "string" && args !== "" ? JSON.parse(args) : {};
      } catch {
        throw new UntranslatableError(`messages[${i}].tool_calls`, `The parameter \`messages[${i}].tool_calls\` has arguments that are not JSON`);
      }
      blocks.push({ type: "tool_use", id: call["id"], name: fn["name"], input });
    }
  }
  return blocks;
}

function toolResultContent(content: unknown, path: string): unknown {
  return typeof content === "string" ? content : contentBlocks(content, path);
}
