import { field, isObject } from "../../usage/usage-fields.ts";
import { UntranslatableError } from "../translation/request-translation.ts";

/** An OpenAI chat/completions body translated to a Bedrock Converse request. */
export interface ConverseCall {
  readonly modelId: string;
  readonly stream: boolean;
  /** The caller (or Renio) asked for a usage chunk at the end of the stream. */
  readonly includeUsage: boolean;
  readonly body: Record<string, unknown>;
}

/** Top-level OpenAI parameters read by this translation; any other is a 400 naming it. */
const HANDLED = new Set([
  "model", "messages", "max_tokens", "max_completion_tokens", "temperature", "top_p", "stop",
  "stream", "stream_options", "tools", "tool_choice", "n",
]);

type Block = Record<string, unknown>;
interface Message { role: "user" | "assistant"; content: Block[] }

/** Translates an OpenAI chat/completions request; throws UntranslatableError on what Converse cannot express. */
export function toConverse(request: unknown): ConverseCall {
  if (!isObject(request)) throw new UntranslatableError("body", "the request body must be a JSON object");
  for (const [key, value] of Object.entries(request)) {
    if (!HANDLED.has(key) && value !== null) {
      throw new UntranslatableError(key, `parameter '${key}' has no Bedrock Converse equivalent`);
    }
  }
  const modelId = request["model"];
  if (typeof modelId !== "string" || modelId === "") throw new UntranslatableError("model", "'model' must be a non-empty string");
  if (request["n"] != null && request["n"] !== 1) throw new UntranslatableError("n", "Bedrock Converse returns one choice: 'n' must be 1");
  const body: Record<string, unknown> = {};
  const system: Block[] = [];
  const messages: Message[] = [];
  const list = request["messages"];
  if (!Array.isArray(list) || list.length === 0) throw new UntranslatableError("messages", "'messages' must be a non-empty array");
  list.forEach((message, i) => addMessage(message, `messages[${i}]`, system, messages));
  body["messages"] = messages;
  if (system.length > 0) body["system"] = system;
  const inference = inferenceConfig(request);
  if (Object.keys(inference).length > 0) body["inferenceConfig"] = inference;
  const tools = toolConfig(request);
  if (tools !== undefined) body["toolConfig"] = tools;
  return {
    modelId,
    stream: request["stream"] === true,
    includeUsage: field(request["stream_options"], "include_usage") === true,
    body,
  };
}

function addMessage(message: unknown, path: string, system: Block[], messages: Message[]): void {
  const role = field(message, "role");
  const content = field(message, "content");
  if (role === "system" || role === "developer") {
    for (const part of contentParts(content, path)) {
      if (!("text" in part)) throw new UntranslatableError(`${path}.content`, "system messages may hold only text");
      system.push(part);
    }
    return;
  }
  if (role === "user") return push(messages, "user", contentParts(content, path));
  if (role === "assistant") {
    const blocks = content == null ? [] : contentParts(content, path).filter((b) => b["text"] !== "");
    const calls = field(message, "tool_calls");
    if (Array.isArray(calls)) calls.forEach((call, j) => blocks.push(toolUse(call, `${path}.tool_calls[${j}]`)));
    return push(messages, "assistant", blocks);
  }
  if (role === "tool") {
    const id = field(message, "tool_call_id");
    if (typeof id !== "string") throw new UntranslatableError(`${path}.tool_call_id`, "a tool message needs a 'tool_call_id'");
    const result = contentParts(content, path).filter((b) => "text" in b);
    return push(messages, "user", [{ toolResult: { toolUseId: id, content: result } }]);
  }
  throw new UntranslatableError(`${path}.role`, `message role '${String(role)}' has no Bedrock Converse equivalent`);
}

/** Bedrock wants user and assistant turns to alternate: consecutive same-role messages are merged. */
function push(messages: Message[], role: Message["role"], content: Block[]): void {
  const last = messages[messages.length - 1];
  if (last?.role === role) last.content.push(...content);
  else messages.push({ role, content });
}

function contentParts(content: unknown, path: string): Block[] {
  if (typeof content === "string") return [{ text: content }];
  if (!Array.isArray(content)) throw new UntranslatableError(`${path}.content`, "'content' must be a string or an array of parts");
  return content.map((part, k) => {
    const type = field(part, "type");
    if (type === "text") return { text: String(field(part, "text") ?? "") };
    if (type === "image_url") return image(field(field(part, "image_url"), "url"), `${path}.content[${k}]`);
    throw new UntranslatableError(`${path}.content[${k}].type`, `content part type '${String(type)}' has no Bedrock Converse equivalent`);
  });
}

const IMAGE = /^data:image\/(png|jpeg|jpg|gif|webp);base64,(.*)$/s;

/** Converse takes images as bytes (base64 in JSON); remote URLs are not fetched on the caller's behalf. */
function image(url: unknown, path: string): Block {
  const match = typeof url === "string" ? IMAGE.exec(url) : null;
  if (match === null) throw new UntranslatableError(`${path}.image_url`, "Bedrock Converse takes images as base64 data URLs (png, jpeg, gif, webp)");
  return { image: { format: match[1] === "jpg" ? "jpeg" : match[1], source: { bytes: match[2] } } };
}

function toolUse(call: unknown, path: string): Block {
  const fn = field(call, "function");
  const args = field(fn, "arguments");
  let input: unknown = {};
  if (typeof args === "string" && args !== "") {
    try {
      input = JSON.parse(args);
    } catch {
      throw new UntranslatableError(`${path}.function.arguments`, "tool call arguments must be JSON");
    }
  }
  return { toolUse: { toolUseId: field(call, "id"), name: field(fn, "name"), input } };
}

function inferenceConfig(request: Record<string, unknown>): Record<string, unknown> {
  const config: Record<string, unknown> = {};
  const maxTokens = request["max_completion_tokens"] ?? request["max_tokens"];
  if (maxTokens != null) config["maxTokens"] = maxTokens;
  if (request["temperature"] != null) config["temperature"] = request["temperature"];
  if (request["top_p"] != null) config["topP"] = request["top_p"];
  const stop = request["stop"];
  if (stop != null) config["stopSequences"] = typeof stop === "string" ? [stop] : stop;
  return config;
}

function toolConfig(request: Record<string, unknown>): Record<string, unknown> | undefined {
  const tools = request["tools"];
  if (tools == null) return undefined;
  if (!Array.isArray(tools)) throw new UntranslatableError("tools", "'tools' must be an array");
  const specs = tools.map((tool, i) => {
    if (field(tool, "type") !== "function") throw new UntranslatableError(`tools[${i}].type`, "only function tools have a Bedrock Converse equivalent");
    const fn = field(tool, "function");
    const spec: Record<string, unknown> = { name: field(fn, "name"), inputSchema: { json: field(fn, "parameters") ?? { type: "object" } } };
    const description = field(fn, "description");
    if (typeof description === "string") spec["description"] = description;
    return { toolSpec: spec };
  });
  return { tools: specs, toolChoice: converseToolChoice(request["tool_choice"]) };
}

/** Converse's `toolChoice`: `any` is "some tool" (OpenAI's `required`), `tool` one named function. */
type ConverseToolChoice = { auto: Record<string, never> } | { any: Record<string, never> } | { tool: { name: unknown } };

/** OpenAI's `tool_choice` (absent = auto) in Converse's terms; `none` and other forms are a 400. */
function converseToolChoice(choice: unknown): ConverseToolChoice {
  if (choice === "auto" || choice == null) return { auto: {} };
  if (choice === "required") return { any: {} };
  if (field(choice, "type") === "function") return { tool: { name: field(field(choice, "function"), "name") } };
  throw new UntranslatableError("tool_choice", `tool_choice ${JSON.stringify(choice)} has no Bedrock Converse equivalent`);
}
