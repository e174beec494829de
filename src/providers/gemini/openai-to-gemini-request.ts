import { UntranslatableError } from "../translation/request-translation.ts";

/** OpenAI chat/completions request → Gemini `generateContent` request. */

type Json = Record<string, unknown>;

/** Parameters with a Gemini equivalent (or none needed: `model`, `stream`, `stream_options`). */
const KNOWN = new Set([
  "model", "messages", "stream", "stream_options", "max_tokens", "max_completion_tokens", "temperature", "top_p",
  "stop", "n", "seed", "presence_penalty", "frequency_penalty", "response_format", "tools", "tool_choice",
]);

/** The translated body and the upstream model it is for. */
export interface GeminiRequest {
  readonly model: string;
  readonly stream: boolean;
  readonly body: Json;
}

/** Translates an OpenAI chat body; throws UntranslatableError for what Gemini has no equivalent for. */
export function toGeminiRequest(openai: Json): GeminiRequest {
  for (const name of Object.keys(openai)) {
    if (!KNOWN.has(name)) throw new UntranslatableError(name, `\`${name}\` has no equivalent in the Gemini API`);
  }
  const model = openai["model"];
  if (typeof model !== "string" || model === "") throw new UntranslatableError("model", "`model` must be a string");
  const messages = openai["messages"];
  if (!Array.isArray(messages)) throw new UntranslatableError("messages", "`messages` must be an array");
  const body: Json = { contents: toContents(messages as Json[]) };
  const system = systemText(messages as Json[]);
  if (system !== undefined) body["systemInstruction"] = { parts: [{ text: system }] };
  const generationConfig = toGenerationConfig(openai);
  if (Object.keys(generationConfig).length > 0) body["generationConfig"] = generationConfig;
  const tools = openai["tools"];
  if (Array.isArray(tools) && tools.length > 0) body["tools"] = [{ functionDeclarations: tools.map(toFunctionDeclaration) }];
  if (openai["tool_choice"] !== undefined) body["toolConfig"] = { functionCallingConfig: toFunctionCallingConfig(openai["tool_choice"]) };
  return { model, stream: openai["stream"] === true, body };
}

function systemText(messages: readonly Json[]): string | undefined {
  const texts = messages.filter((m) => m["role"] === "system" || m["role"] === "developer").map((m) => textOf(m["content"], "messages[].content"));
  return texts.length === 0 ? undefined : texts.join("\n\n");
}

function toContents(messages: readonly Json[]): Json[] {
  const toolNames = new Map<string, string>();
  const contents: Json[] = [];
  messages.forEach((message, index) => {
    const role = message["role"];
    if (role === "system" || role === "developer") return;
    if (role === "user") contents.push({ role: "user", parts: userParts(message["content"], index) });
    else if (role === "assistant") contents.push({ role: "model", parts: assistantParts(message, toolNames) });
    else if (role === "tool") {
      const id = String(message["tool_call_id"] ?? "");
      const name = toolNames.get(id);
      if (name === undefined) throw new UntranslatableError(`messages[${index}].tool_call_id`, `\`messages[${index}].tool_call_id\` names no earlier tool call`);
      const part = { functionResponse: { name, response: { content: textOf(message["content"], `messages[${index}].content`) } } };
      const previous = contents.at(-1);
      // Gemini wants all answers to one turn's calls in one user turn.
      if (previous?.["role"] === "user" && (previous["parts"] as Json[]).every((p) => "functionResponse" in p)) (previous["parts"] as Json[]).push(part);
      else contents.push({ role: "user", parts: [part] });
    } else throw new UntranslatableError(`messages[${index}].role`, `\`messages[${index}].role\` ${JSON.stringify(role)} has no equivalent in the Gemini API`);
  });
  return contents;
}

function userParts(content: unknown, index: number): Json[] {
  if (typeof content === "string") return [{ text: content }];
  if (!Array.isArray(content)) throw new UntranslatableError(`messages[${index}].content`, `\`messages[${index}].content\` must be a string or an array of parts`);
  return (content as Json[]).map((part, partIndex) => {
    const where = `messages[${index}].content[${partIndex}]`;
    if (part["type"] === "text") return { text: String(part["text"] ?? "") };
    if (part["type"] === "image_url") return imagePart((part["image_url"] as Json | undefined)?.["url"], where);
    throw new UntranslatableError(`${where}.type`, `\`${where}.type\` ${JSON.stringify(part["type"])} has no equivalent in the Gemini API`);
  });
}

/** Inline images only: Gemini fetches no URLs from `generateContent` parts. */
function imagePart(url: unknown, where: string): Json {
  const match = typeof url === "string" ? /^data:([^;,]+);base64,(.*)$/s.exec(url) : null;
  if (match === null) throw new UntranslatableError(`${where}.image_url.url`, `\`${where}.image_url.url\` must be a base64 data: URL (the Gemini API takes no image URLs)`);
  return { inlineData: { mimeType: match[1], data: match[2] } };
}

function assistantParts(message: Json, toolNames: Map<string, string>): Json[] {
  const parts: Json[] = [];
  const content = message["content"];
  if (content !== null && content !== undefined) {
    const text = textOf(content, "messages[].content");
    if (text !== "") parts.push({ text });
  }
  for (const call of (message["tool_calls"] as Json[] | undefined) ?? []) {
    const fn = call["function"] as Json;
    const name = String(fn["name"]);
    toolNames.set(String(call["id"]), name);
    parts.push({ functionCall: { name, args: parseArguments(fn["arguments"]) } });
  }
  return parts.length === 0 ? [{ text: "" }] : parts;
}

function parseArguments(args: unknown): unknown {
  if (typeof args !== "string" || args === "") return {};
  try {
    return JSON.parse(args);
  } catch {
    throw new UntranslatableError("messages[].tool_calls[].function.arguments", "`tool_calls[].function.arguments` must be JSON");
  }
}

function textOf(content: unknown, where: string): string {
  if (typeof content === "string") return content;
  if (Array.isArray(content) && content.every((p: Json) => p["type"] === "text")) return content.map((p: Json) => String(p["text"] ?? "")).join("");
  throw new UntranslatableError(where, `\`${where}\` must be text here`);
}

function toGenerationConfig(openai: Json): Json {
  const config: Json = {};
  const maxTokens = openai["max_completion_tokens"] ?? openai["max_tokens"];
  if (maxTokens !== undefined && maxTokens !== null) config["maxOutputTokens"] = maxTokens;
  const stop = openai["stop"];
  if (stop !== undefined && stop !== null) config["stopSequences"] = Array.isArray(stop) ? stop : [stop];
  const renames = [["temperature", "temperature"], ["top_p", "topP"], ["n", "candidateCount"], ["seed", "seed"], ["presence_penalty", "presencePenalty"], ["frequency_penalty", "frequencyPenalty"]] as const;
  for (const [from, to] of renames) if (openai[from] !== undefined && openai[from] !== null) config[to] = openai[from];
  const format = openai["response_format"] as Json | undefined;
  if (format?.["type"] === "json_object") config["responseMimeType"] = "application/json";
  else if (format?.["type"] === "json_schema") {
    config["responseMimeType"] = "application/json";
    config["responseJsonSchema"] = (format["json_schema"] as Json | undefined)?.["schema"] ?? {};
  } else if (format !== undefined && format["type"] !== "text") throw new UntranslatableError("response_format.type", "`response_format.type` must be text, json_object or json_schema");
  return config;
}

function toFunctionDeclaration(tool: Json, index: number): Json {
  if (tool["type"] !== "function") throw new UntranslatableError(`tools[${index}].type`, `\`tools[${index}].type\` ${JSON.stringify(tool["type"])} has no equivalent in the Gemini API`);
  const fn = tool["function"] as Json;
  const declaration: Json = { name: fn["name"] };
  if (fn["description"] !== undefined) declaration["description"] = fn["description"];
  if (fn["parameters"] !== undefined) declaration["parametersJsonSchema"] = fn["parameters"];
  return declaration;
}

function toFunctionCallingConfig(choice: unknown): Json {
  if (choice === "auto") return { mode: "AUTO" };
  if (choice === "none") return { mode: "NONE" };
  if (choice === "required") return { mode: "ANY" };
  const name = ((choice as Json | null)?.["function"] as Json | undefined)?.["name"];
  if (typeof name === "string") return { mode: "ANY", allowedFunctionNames: [name] };
  throw new UntranslatableError("tool_choice", "`tool_choice` must be auto, none, required or a named function");
}
