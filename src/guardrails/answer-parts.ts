import { member, numberOf, stringOf, type JsonNode, type JsonString } from "./json-spans.ts";

/** One string of an answer that policies scan and placeholders are restored in. */
export interface AnswerString {
  readonly node: JsonString;
  /** Where it is: `choices[0].message.content`, `content[1].input.city`. */
  readonly where: string;
  /** The string holds JSON text (OpenAI tool arguments): a restored value is escaped for it. */
  readonly jsonText: boolean;
}

type Out = AnswerString[];

function items(node: JsonNode | undefined): readonly JsonNode[] {
  return node?.kind === "array" ? node.items : [];
}

function push(node: JsonNode | undefined, where: string, out: Out, jsonText = false): void {
  if (node?.kind === "string") out.push({ node, where, jsonText });
}

/** Every string inside `node` (Anthropic tool input), with its path. */
function allStrings(node: JsonNode | undefined, where: string, out: Out): void {
  if (node === undefined) return;
  if (node.kind === "string") out.push({ node, where, jsonText: false });
  else if (node.kind === "array") node.items.forEach((item, i) => allStrings(item, `${where}[${i}]`, out));
  else if (node.kind === "object") for (const [key, value] of node.entries) allStrings(value, `${where}.${key}`, out);
}

/**
 * The text a JSON answer of `path` carries: OpenAI chat `choices[].message` content, refusal and
 * tool call arguments; completions `choices[].text`; Responses `output` items (message text,
 * refusals, function call arguments) and `output_text`; Anthropic `content` text blocks and
 * `tool_use` input. Not read: ids, usage, reasoning and thinking, audio and images.
 */
export function answerStrings(root: JsonNode, path: string): AnswerString[] {
  const out: Out = [];
  switch (path) {
    case "/v1/chat/completions":
      for (const [i, choice] of items(member(root, "choices")).entries()) {
        const where = `choices[${numberOf(member(choice, "index")) ?? i}].message`;
        const message = member(choice, "message");
        const content = member(message, "content");
        if (content?.kind === "array") items(content).forEach((part, j) => push(member(part, "text"), `${where}.content[${j}].text`, out));
        else push(content, `${where}.content`, out);
        push(member(message, "refusal"), `${where}.refusal`, out);
        items(member(message, "tool_calls")).forEach((call, j) => push(member(member(call, "function"), "arguments"), `${where}.tool_calls[${j}].function.arguments`, out, true));
        push(member(member(message, "function_call"), "arguments"), `${where}.function_call.arguments`, out, true);
      }
      break;
    case "/v1/completions":
      for (const [i, choice] of items(member(root, "choices")).entries()) push(member(choice, "text"), `choices[${numberOf(member(choice, "index")) ?? i}].text`, out);
      break;
    case "/v1/responses":
      responsesOutput(member(root, "output"), "output", out);
      push(member(root, "output_text"), "output_text", out);
      break;
    case "/v1/messages":
      items(member(root, "content")).forEach((block, i) => contentBlock(block, `content[${i}]`, out));
      break;
  }
  return out;
}

/** The strings of a Responses `output` array. */
export function responsesOutput(output: JsonNode | undefined, where: string, out: Out): void {
  items(output).forEach((item, i) => responsesItem(item, `${where}[${i}]`, out));
}

/** The strings of one Responses output item (a message's text and refusals, a tool call's arguments or input). */
export function responsesItem(item: JsonNode | undefined, where: string, out: Out): void {
  const type = stringOf(member(item, "type"));
  if (type === "message") {
    items(member(item, "content")).forEach((part, j) => {
      push(member(part, "text"), `${where}.content[${j}].text`, out);
      push(member(part, "refusal"), `${where}.content[${j}].refusal`, out);
    });
  } else if (type === "function_call") push(member(item, "arguments"), `${where}.arguments`, out, true);
  else if (type === "custom_tool_call") push(member(item, "input"), `${where}.input`, out);
}

/** An Anthropic content block's strings (text; tool_use input). */
export function contentBlock(block: JsonNode | undefined, where: string, out: Out): void {
  const type = stringOf(member(block, "type"));
  if (type === "text") push(member(block, "text"), `${where}.text`, out);
  else if (type === "tool_use") allStrings(member(block, "input"), `${where}.input`, out);
}
