import type { RequestPart } from "../config/guardrails-schema.ts";
import { member, stringOf, type JsonNode, type JsonString } from "./json-spans.ts";

/** One string of a request that policies scan: which part it belongs to and where it is (`messages[2].content`). */
export interface ScannedString {
  readonly node: JsonString;
  readonly part: RequestPart;
  readonly where: string;
}

type Out = ScannedString[];

/** Text blocks' types whose `text` is scanned. */
const TEXT_TYPES = new Set(["text", "input_text", "output_text"]);

/**
 * The strings a request of `path` sends as content, by part: the messages (and prompts and
 * embedding inputs), the system prompt (OpenAI `system`/`developer` messages and Responses
 * `instructions`, Anthropic `system`), tool arguments (OpenAI `tool_calls[].function.arguments`
 * and Responses `function_call` items, Anthropic `tool_use.input` strings) and tool results
 * (OpenAI `tool` messages, Responses `function_call_output`, Anthropic `tool_result`). Not
 * read: model names, ids, tool definitions, images, audio and files (only their text form is
 * scanned where it is text), and Anthropic `thinking` blocks (signed: they cannot be changed).
 */
export function requestStrings(root: JsonNode, path: string): ScannedString[] {
  const out: Out = [];
  switch (path) {
    case "/v1/chat/completions":
      chatMessages(member(root, "messages"), out);
      break;
    case "/v1/completions":
      texts(member(root, "prompt"), "prompt", "messages", out);
      texts(member(root, "suffix"), "suffix", "messages", out);
      break;
    case "/v1/embeddings":
      texts(member(root, "input"), "input", "messages", out);
      break;
    case "/v1/responses":
      texts(member(root, "instructions"), "instructions", "system", out);
      responsesInput(member(root, "input"), out);
      break;
    case "/v1/messages":
    case "/v1/messages/count_tokens":
      texts(member(root, "system"), "system", "system", out);
      anthropicMessages(member(root, "messages"), out);
      break;
  }
  return out;
}

/** A string, or the text blocks of an array (strings, `{type: text|input_text|output_text, text}`, `{type: refusal, refusal}`). */
function texts(node: JsonNode | undefined, where: string, part: RequestPart, out: Out): void {
  if (node?.kind === "string") out.push({ node, part, where });
  if (node?.kind !== "array") return;
  node.items.forEach((item, i) => {
    if (item.kind === "string") return out.push({ node: item, part, where: `${where}[${i}]` });
    const type = stringOf(member(item, "type"));
    const field = type === "refusal" ? "refusal" : type !== undefined && TEXT_TYPES.has(type) ? "text" : undefined;
    const text = field === undefined ? undefined : member(item, field);
    if (text?.kind === "string") out.push({ node: text, part, where: `${where}[${i}].${field}` });
  });
}

/** Every string inside `node` (tool arguments given as JSON values), with its path. */
function allStrings(node: JsonNode | undefined, where: string, part: RequestPart, out: Out): void {
  if (node === undefined) return;
  if (node.kind === "string") out.push({ node, part, where });
  else if (node.kind === "array") node.items.forEach((item, i) => allStrings(item, `${where}[${i}]`, part, out));
  else if (node.kind === "object") for (const [key, value] of node.entries) allStrings(value, `${where}.${key}`, part, out);
}

function items(node: JsonNode | undefined): readonly JsonNode[] {
  return node?.kind === "array" ? node.items : [];
}

/** OpenAI chat messages. */
function chatMessages(messages: JsonNode | undefined, out: Out): void {
  items(messages).forEach((message, i) => {
    const where = `messages[${i}]`;
    const role = stringOf(member(message, "role"));
    const part: RequestPart = role === "system" || role === "developer" ? "system" : role === "tool" || role === "function" ? "toolResults" : "messages";
    texts(member(message, "content"), `${where}.content`, part, out);
    texts(member(message, "refusal"), `${where}.refusal`, part, out);
    items(member(message, "tool_calls")).forEach((call, j) => {
      const args = member(member(call, "function"), "arguments");
      if (args?.kind === "string") out.push({ node: args, part: "toolArguments", where: `${where}.tool_calls[${j}].function.arguments` });
    });
    const legacy = member(member(message, "function_call"), "arguments");
    if (legacy?.kind === "string") out.push({ node: legacy, part: "toolArguments", where: `${where}.function_call.arguments` });
  });
}

/** OpenAI Responses `input`: a string, or items (messages, tool calls and their outputs). */
function responsesInput(input: JsonNode | undefined, out: Out): void {
  if (input?.kind === "string") return void out.push({ node: input, part: "messages", where: "input" });
  items(input).forEach((item, i) => {
    const where = `input[${i}]`;
    const type = stringOf(member(item, "type")) ?? "message";
    if (type === "message") {
      const role = stringOf(member(item, "role"));
      texts(member(item, "content"), `${where}.content`, role === "system" || role === "developer" ? "system" : "messages", out);
    } else if (type === "function_call" || type === "mcp_call") {
      texts(member(item, "arguments"), `${where}.arguments`, "toolArguments", out);
      if (type === "mcp_call") texts(member(item, "output"), `${where}.output`, "toolResults", out);
    } else if (type === "custom_tool_call") {
      texts(member(item, "input"), `${where}.input`, "toolArguments", out);
    } else if (type === "function_call_output" || type === "custom_tool_call_output") {
      texts(member(item, "output"), `${where}.output`, "toolResults", out);
    }
  });
}

/** Anthropic messages: text, tool_use input, tool_result content, and text documents. */
function anthropicMessages(messages: JsonNode | undefined, out: Out): void {
  items(messages).forEach((message, i) => {
    const where = `messages[${i}].content`;
    const content = member(message, "content");
    if (content?.kind === "string") return void out.push({ node: content, part: "messages", where });
    items(content).forEach((block, j) => {
      const at = `${where}[${j}]`;
      switch (stringOf(member(block, "type"))) {
        case "text":
          return texts(member(block, "text"), `${at}.text`, "messages", out);
        case "tool_use":
          return allStrings(member(block, "input"), `${at}.input`, "toolArguments", out);
        case "tool_result":
          return texts(member(block, "content"), `${at}.content`, "toolResults", out);
        case "document": {
          const source = member(block, "source");
          if (stringOf(member(source, "type")) === "text") texts(member(source, "data"), `${at}.source.data`, "messages", out);
          return;
        }
      }
    });
  });
}
