import { isReasoningModel, outputLimitField } from "../output-limit-field.ts";
import { UntranslatableError, type RequestTranslation } from "../translation/request-translation.ts";

type Json = Record<string, unknown>;

/** Anthropic parameters with no OpenAI chat equivalent: a 400 naming them unless `dropUnsupported`. */
const UNSUPPORTED = new Set(["top_k", "container", "mcp_servers", "service_tier"]);
const KNOWN = new Set(["model", "messages", "system", "max_tokens", "temperature", "top_p", "stop_sequences", "stream", "tools", "tool_choice", "metadata", "output_format", "output_config", "thinking", "context_management"]);
/** Anthropic's `output_config.effort` as OpenAI's `reasoning_effort` (reasoning models only). */
const REASONING_EFFORT: ReadonlyMap<string, string> = new Map([["low", "low"], ["medium", "medium"], ["high", "high"], ["max", "high"]]);

/**
 * An Anthropic Messages request as an OpenAI chat/completions request: `system` becomes the
 * first (system) message, blocks become content parts (images as data URLs or URLs),
 * `tool_use` blocks an assistant's `tool_calls`, `tool_result` blocks `tool` messages.
 */
export function anthropicToOpenAiRequest(body: Json, options: RequestTranslation): Json {
  for (const key of Object.keys(body)) {
    if (KNOWN.has(key)) continue;
    if (options.dropUnsupported) continue;
    const why = UNSUPPORTED.has(key) ? "has no equivalent on this model's provider (OpenAI chat/completions)" : "is not known to the Anthropic → OpenAI translation";
    throw new UntranslatableError(key, `The parameter \`${key}\` ${why}`);
  }
  const messages: Json[] = [];
  const system = body["system"];
  if (typeof system === "string") messages.push({ role: "system", content: system });
  else if (Array.isArray(system)) messages.push({ role: "system", content: system.map((block: Json) => String(block["text"] ?? "")).join("\n\n") });
  const list = body["messages"];
  if (!Array.isArray(list)) throw new UntranslatableError("messages", "The parameter `messages` must be an array");
  list.forEach((message: Json, i: number) => messages.push(...openAiMessages(message, `messages[${i}]`)));
  const model = String(body["model"] ?? "");
  const out: Json = { model: body["model"], messages };
  const limit = typeof body["max_tokens"] === "number" ? body["max_tokens"] : options.outputLimit;
  if (limit !== undefined) out[outputLimitField("/v1/chat/completions", model)] = limit;
  reasoning(body, out, isReasoningModel(model), options.dropUnsupported);
  for (const key of ["temperature", "top_p"] as const) if (body[key] !== undefined) out[key] = body[key];
  if (Array.isArray(body["stop_sequences"])) out["stop"] = body["stop_sequences"];
  const user = (body["metadata"] as Json | undefined)?.["user_id"];
  if (typeof user === "string") out["user"] = user;
  if (body["stream"] === true) (out["stream"] = true), (out["stream_options"] = { include_usage: true });
  if (Array.isArray(body["tools"])) {
    out["tools"] = body["tools"].map((tool: Json, i: number) => {
      if (tool["type"] !== undefined && tool["type"] !== "custom") throw new UntranslatableError(`tools[${i}].type`, `The parameter \`tools[${i}].type\` (${String(tool["type"])}) cannot be translated: only client tools can`);
      const fn: Json = { name: tool["name"], parameters: tool["input_schema"] };
      if (typeof tool["description"] === "string") fn["description"] = tool["description"];
      return { type: "function", function: fn };
    });
  }
  const choice = body["tool_choice"] as Json | undefined;
  if (choice !== undefined) {
    const kind = choice["type"];
    out["tool_choice"] = kind === "any" ? "required" : kind === "tool" ? { type: "function", function: { name: choice["name"] } } : kind === "none" ? "none" : "auto";
    if (choice["disable_parallel_tool_use"] === true) out["parallel_tool_calls"] = false;
  }
  const format = ((body["output_config"] as Json | undefined)?.["format"] ?? body["output_format"]) as Json | undefined;
  if (format !== undefined && format !== null && format["type"] === "json_schema") out["response_format"] = { type: "json_schema", json_schema: { name: "output", schema: format["schema"], strict: true } };
  return out;
}

/**
 * Extended thinking on an OpenAI model. A reasoning model always reasons: `thinking` (enabled or
 * adaptive) needs no field, `output_config.effort` becomes `reasoning_effort`. Other models
 * cannot think: enabled or adaptive thinking and an effort are untranslatable (dropped with
 * `dropUnsupported`). `context_management` edits that clear thinking blocks change nothing
 * (thinking blocks are never sent to OpenAI); any other edit is untranslatable.
 */
function reasoning(body: Json, out: Json, reasoningModel: boolean, dropUnsupported: boolean): void {
  const refuse = (param: string, why: string): void => {
    if (!dropUnsupported) throw new UntranslatableError(param, `The parameter \`${param}\` ${why}`);
  };
  const thinking = body["thinking"] as Json | undefined | null;
  if (thinking !== undefined && thinking !== null && thinking["type"] !== "disabled" && !reasoningModel) refuse("thinking", "needs a reasoning model on this model's provider (OpenAI chat/completions)");
  const effort = (body["output_config"] as Json | undefined)?.["effort"];
  if (typeof effort === "string") {
    if (!reasoningModel) refuse("output_config.effort", "needs a reasoning model on this model's provider (OpenAI chat/completions)");
    else if (REASONING_EFFORT.has(effort)) out["reasoning_effort"] = REASONING_EFFORT.get(effort);
    else refuse("output_config.effort", `(${effort}) has no equivalent on OpenAI chat/completions`);
  }
  const edits = (body["context_management"] as Json | undefined)?.["edits"];
  if (Array.isArray(edits) && edits.some((edit: Json) => !String(edit["type"]).startsWith("clear_thinking_"))) refuse("context_management", "has edits other than clearing thinking, which OpenAI chat/completions cannot apply");
}

function openAiMessages(message: Json, path: string): Json[] {
  const role = message["role"];
  const content = message["content"];
  if (typeof content === "string") return [{ role, content }];
  if (!Array.isArray(content)) throw new UntranslatableError(`${path}.content`, `The parameter \`${path}.content\` must be a string or an array of blocks`);
  const parts: Json[] = [];
  const toolCalls: Json[] = [];
  const toolResults: Json[] = [];
  content.forEach((block: Json, i: number) => {
    const type = block["type"];
    if (type === "text") parts.push({ type: "text", text: block["text"] });
    else if (type === "image") parts.push({ type: "image_url", image_url: { url: imageUrl(block["source"] as Json) } });
    else if (type === "tool_use" && role === "assistant") toolCalls.push({ id: block["id"], type: "function", function: { name: block["name"], arguments: JSON.stringify(block["input"] ?? {}) } });
    else if (type === "tool_result" && role === "user") toolResults.push({ role: "tool", tool_call_id: block["tool_use_id"], content: toolResultText(block["content"]) });
    else if (type === "thinking" || type === "redacted_thinking") return;
    else throw new UntranslatableError(`${path}.content[${i}].type`, `The parameter \`${path}.content[${i}].type\` (${String(type)}) cannot be translated to OpenAI chat/completions`);
  });
  if (role === "assistant") {
    const text = parts.map((part) => String(part["text"] ?? "")).join("");
    const reply: Json = { role, content: text === "" && toolCalls.length > 0 ? null : text };
    if (toolCalls.length > 0) reply["tool_calls"] = toolCalls;
    return [reply];
  }
  return parts.length === 0 ? toolResults : [...toolResults, { role, content: parts }];
}

function imageUrl(source: Json): string {
  if (source["type"] === "base64") return `data:${String(source["media_type"])};base64,${String(source["data"])}`;
  return String(source["url"]);
}

function toolResultText(content: unknown): string {
  if (typeof content === "string") return content;
  if (Array.isArray(content)) return content.map((block: Json) => (block["type"] === "text" ? String(block["text"]) : "")).join("");
  return "";
}
