import type { Usage, WireFormat } from "../shared/usage.ts";
import { parseSseEvent } from "./sse-event-fields.ts";
import {
  anthropicUsage,
  type AnthropicCounters,
  field,
  isObject,
  mergeAnthropicModel,
  mergeAnthropicUsage,
  openAiUsage,
} from "./usage-fields.ts";

/** Records the usage carried by the events of one streamed response. */
export interface UsageRecorder {
  /**
   * Reads one complete event (raw bytes, terminator included) and records its usage.
   * Returns true when the event is an OpenAI chat usage-only chunk (`"choices":[]` with usage).
   * Never throws on malformed events.
   */
  record(event: Uint8Array): boolean;
  /** Usage seen so far, or null when none was. */
  usage(): Usage | null;
  /**
   * Whether the provider's final usage was seen: an OpenAI chat/completions usage chunk (no
   * choices, or a finished one), a Responses `response.completed` / `incomplete` / `failed`,
   * an Anthropic `message_delta` with usage. Before that, `usage()` may be a lower bound
   * (e.g. message_start's placeholder `output_tokens`).
   */
  final(): boolean;
}

const RESPONSES_FINAL = new Set(["response.completed", "response.incomplete", "response.failed"]);

const decoder = new TextDecoder();

function eventJson(bytes: Uint8Array): { type: string; json: unknown } | undefined {
  const { event, data } = parseSseEvent(decoder.decode(bytes));
  if (data === "" || data === "[DONE]") return undefined;
  let json: unknown;
  try {
    json = JSON.parse(data);
  } catch {
    return undefined;
  }
  const type = field(json, "type");
  return { type: typeof type === "string" ? type : event, json };
}

/** Creates the recorder for a wire format (see createUsageTap for the events read). */
export function createUsageRecorder(format: WireFormat): UsageRecorder {
  return format === "openai" ? openAiRecorder() : anthropicRecorder();
}

function openAiRecorder(): UsageRecorder {
  let last: Usage | null = null;
  let final = false;
  return {
    record(bytes) {
      const parsed = eventJson(bytes);
      if (parsed === undefined) return false;
      const { type, json } = parsed;
      const usage = field(json, "usage");
      if (isObject(usage)) {
        const counted = openAiUsage(usage, json);
        last = counted ?? last;
        const choices = field(json, "choices");
        // Mid-stream usage (e.g. continuous usage stats) rides on unfinished choices: not final.
        if (counted !== null && (!Array.isArray(choices) || choices.length === 0 || choices.some(isFinished))) final = true;
        return Array.isArray(choices) && choices.length === 0;
      }
      if (RESPONSES_FINAL.has(type)) {
        const response = field(json, "response");
        const counted = openAiUsage(field(response, "usage"), response);
        if (counted !== null) (last = counted), (final = true);
      }
      return false;
    },
    usage: () => (last === null ? null : { ...last }),
    final: () => final,
  };
}

function isFinished(choice: unknown): boolean {
  const reason = field(choice, "finish_reason");
  return reason !== undefined && reason !== null;
}

function anthropicRecorder(): UsageRecorder {
  const counters: AnthropicCounters = {};
  let seen = false;
  let final = false;
  return {
    record(bytes) {
      const parsed = eventJson(bytes);
      if (parsed === undefined) return false;
      const { type, json } = parsed;
      if (type === "message_start") {
        const message = field(json, "message");
        mergeAnthropicModel(counters, message);
        seen = mergeAnthropicUsage(counters, field(message, "usage")) || seen;
      }
      else if (type === "message_delta" && mergeAnthropicUsage(counters, field(json, "usage"))) seen = final = true;
      return false;
    },
    usage: () => (seen ? anthropicUsage(counters) : null),
    final: () => final,
  };
}
