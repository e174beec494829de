import { contentBlock, responsesItem, responsesOutput, type AnswerString } from "./answer-parts.ts";
import { member, numberOf, stringOf, type JsonNode, type JsonString } from "./json-spans.ts";

/** A piece of streamed text in one event: the channel (one text of the answer) it continues. */
export interface StreamSlot {
  readonly node: JsonString;
  /** The text it belongs to (`0:content`: choice 0's content), unique within the stream. */
  readonly channel: string;
  /** Where that text is, for positions (`choices[0].content`). */
  readonly where: string;
  readonly jsonText: boolean;
}

/** What one event of a streamed answer carries, for the guard. */
export interface EventParts {
  readonly slots: StreamSlot[];
  /** Channel prefixes whose text is complete after this event ("" ends every channel). */
  readonly ends: string[];
  /** Complete texts the event repeats (Responses `*.done`, `response.completed`): rewritten like the deltas, not counted again. */
  readonly snapshots: AnswerString[];
  /** The event's `sequence_number` (Responses). */
  readonly sequence: number | undefined;
}

const NONE: EventParts = { slots: [], ends: [], snapshots: [], sequence: undefined };

/** The guard's view of one event's data of a stream on `path` (the caller's wire format). */
export function eventParts(path: string, data: JsonNode): EventParts {
  switch (path) {
    case "/v1/chat/completions":
    case "/v1/completions":
      return chatParts(data);
    case "/v1/responses":
      return responsesParts(data);
    case "/v1/messages":
      return anthropicParts(data);
    default:
      return NONE;
  }
}

/** OpenAI chat and completions chunks: per choice its content, refusal, tool arguments or text; a finish reason ends the choice. */
function chatParts(data: JsonNode): EventParts {
  const slots: StreamSlot[] = [];
  const ends: string[] = [];
  const choices = member(data, "choices");
  for (const choice of choices?.kind === "array" ? choices.items : []) {
    const c = numberOf(member(choice, "index")) ?? 0;
    const delta = member(choice, "delta");
    const add = (node: JsonNode | undefined, channel: string, where: string, jsonText = false) => {
      if (node?.kind === "string") slots.push({ node, channel: `${c}:${channel}`, where: `choices[${c}].${where}`, jsonText });
    };
    add(member(delta, "content"), "content", "content");
    add(member(delta, "refusal"), "refusal", "refusal");
    add(member(choice, "text"), "text", "text");
    const calls = member(delta, "tool_calls");
    for (const call of calls?.kind === "array" ? calls.items : []) {
      const t = numberOf(member(call, "index")) ?? 0;
      add(member(member(call, "function"), "arguments"), `tool${t}`, `tool_calls[${t}].function.arguments`, true);
    }
    if (stringOf(member(choice, "finish_reason")) !== undefined) ends.push(`${c}:`);
  }
  return { slots, ends, snapshots: [], sequence: undefined };
}

/** OpenAI Responses events: text, refusal and argument deltas per item and part; `*.done` events end them and repeat the text. */
function responsesParts(data: JsonNode): EventParts {
  const type = stringOf(member(data, "type")) ?? "";
  const sequence = numberOf(member(data, "sequence_number"));
  const item = stringOf(member(data, "item_id")) ?? "";
  const output = numberOf(member(data, "output_index")) ?? 0;
  const part = numberOf(member(data, "content_index")) ?? 0;
  const slot = (field: string, channel: string, where: string, jsonText = false): StreamSlot[] => {
    const node = member(data, field);
    return node?.kind === "string" ? [{ node, channel, where, jsonText }] : [];
  };
  const text = `${item}:${part}:text`;
  const refusal = `${item}:${part}:refusal`;
  const args = `${item}:arguments`;
  const snapshots: AnswerString[] = [];
  switch (type) {
    case "response.output_text.delta":
      return { slots: slot("delta", text, `output[${output}].content[${part}].text`), ends: [], snapshots, sequence };
    case "response.refusal.delta":
      return { slots: slot("delta", refusal, `output[${output}].content[${part}].refusal`), ends: [], snapshots, sequence };
    case "response.function_call_arguments.delta":
      return { slots: slot("delta", args, `output[${output}].arguments`, true), ends: [], snapshots, sequence };
    case "response.output_text.done":
      return { slots: [], ends: [text], snapshots: snapshotOf(slot("text", text, `output[${output}].content[${part}].text`)), sequence };
    case "response.refusal.done":
      return { slots: [], ends: [refusal], snapshots: snapshotOf(slot("refusal", refusal, `output[${output}].content[${part}].refusal`)), sequence };
    case "response.function_call_arguments.done":
      return { slots: [], ends: [args], snapshots: snapshotOf(slot("arguments", args, `output[${output}].arguments`, true)), sequence };
    case "response.content_part.done": {
      const body = member(data, "part");
      for (const field of ["text", "refusal"]) {
        const node = member(body, field);
        if (node?.kind === "string") snapshots.push({ node, where: `output[${output}].content[${part}].${field}`, jsonText: false });
      }
      return { slots: [], ends: [], snapshots, sequence };
    }
    case "response.output_item.done": {
      const done = member(data, "item");
      responsesItem(done, `output[${output}]`, snapshots);
      return { slots: [], ends: [`${stringOf(member(done, "id")) ?? item}:`], snapshots, sequence };
    }
    case "response.completed":
    case "response.incomplete":
    case "response.failed":
      responsesOutput(member(member(data, "response"), "output"), "output", snapshots);
      return { slots: [], ends: [""], snapshots, sequence };
    default:
      return { slots: [], ends: [], snapshots, sequence };
  }
}

function snapshotOf(slots: readonly StreamSlot[]): AnswerString[] {
  return slots.map(({ node, where, jsonText }) => ({ node, where, jsonText }));
}

/** Anthropic events: text and tool-input deltas per content block; a block's stop ends it, message_stop ends all. */
function anthropicParts(data: JsonNode): EventParts {
  const type = stringOf(member(data, "type"));
  const index = numberOf(member(data, "index")) ?? 0;
  if (type === "content_block_delta") {
    const delta = member(data, "delta");
    const kind = stringOf(member(delta, "type"));
    const node = kind === "text_delta" ? member(delta, "text") : kind === "input_json_delta" ? member(delta, "partial_json") : undefined;
    if (node?.kind !== "string") return NONE;
    const text = kind === "text_delta";
    return { slots: [{ node, channel: `${index}:`, where: `content[${index}].${text ? "text" : "input"}`, jsonText: !text }], ends: [], snapshots: [], sequence: undefined };
  }
  if (type === "content_block_start") {
    // A block may start with text already in it (rare): scanned like a repeated text.
    const snapshots: AnswerString[] = [];
    contentBlock(member(data, "content_block"), `content[${index}]`, snapshots);
    return { slots: [], ends: [], snapshots, sequence: undefined };
  }
  if (type === "content_block_stop") return { slots: [], ends: [`${index}:`], snapshots: [], sequence: undefined };
  if (type === "message_stop") return { slots: [], ends: [""], snapshots: [], sequence: undefined };
  return NONE;
}
