import type { ServerToolKind, Usage } from "../shared/usage.ts";
import { lookupTable, ownValue } from "../shared/own-keys.ts";

/** A token count from provider JSON: finite and non-negative, else undefined. */
function count(value: unknown): number | undefined {
  return typeof value === "number" && Number.isFinite(value) && value >= 0 ? value : undefined;
}

function record(value: unknown): Record<string, unknown> | undefined {
  return typeof value === "object" && value !== null && !Array.isArray(value)
    ? (value as Record<string, unknown>)
    : undefined;
}

/** Reads `obj[key]` when `obj` is a plain object. */
export function field(obj: unknown, key: string): unknown {
  const object = record(obj);
  return object === undefined ? undefined : ownValue(object, key);
}

/** Whether `value` is a non-null, non-array object. */
export function isObject(value: unknown): value is Record<string, unknown> {
  return record(value) !== undefined;
}

/** OpenAI Responses output item types that are server-tool calls billed per use. */
const OPENAI_TOOL_CALLS = lookupTable<ServerToolKind>({
  web_search_call: "web_search",
  file_search_call: "file_search",
  code_interpreter_call: "code_interpreter",
});

/**
 * Normalizes an OpenAI `usage` object: chat/completions/embeddings (`prompt_tokens`,
 * `prompt_tokens_details.cached_tokens` / `audio_tokens`, `completion_tokens`,
 * `completion_tokens_details.audio_tokens`) or Responses API (`input_tokens`,
 * `input_tokens_details`, `output_tokens`, `output_tokens_details`). `envelope`, the object
 * that holds `usage` (a response body, a chunk, a Responses `response`), adds its
 * `service_tier` (when not `default`/`auto`) and its server-tool calls (`output[]` items of
 * type `web_search_call`, `file_search_call`, `code_interpreter_call`).
 * Returns null when it carries no token counts.
 */
export function openAiUsage(usage: unknown, envelope?: unknown): Usage | null {
  const u = record(usage);
  if (u === undefined) return null;
  const prompt = count(u["prompt_tokens"]);
  const input = prompt ?? count(u["input_tokens"]);
  const output = prompt !== undefined ? count(u["completion_tokens"]) : count(u["output_tokens"]);
  if (input === undefined && output === undefined) return null;
  const details = prompt !== undefined ? u["prompt_tokens_details"] : u["input_tokens_details"];
  const outputDetails = prompt !== undefined ? u["completion_tokens_details"] : u["output_tokens_details"];
  // DeepSeek reports its cache hits as `prompt_cache_hit_tokens`.
  const cached = Math.min(count(field(details, "cached_tokens")) ?? count(u["prompt_cache_hit_tokens"]) ?? 0, input ?? 0);
  const result: Usage = { inputTokens: (input ?? 0) - cached, cachedInputTokens: cached, outputTokens: output ?? 0 };
  addCacheWrites(result, u);
  const audioIn = Math.min(count(field(details, "audio_tokens")) ?? 0, result.inputTokens);
  if (audioIn > 0) result.audioInputTokens = audioIn;
  const audioOut = Math.min(count(field(outputDetails, "audio_tokens")) ?? 0, result.outputTokens);
  if (audioOut > 0) result.audioOutputTokens = audioOut;
  if (envelope !== undefined) addCallDetails(result, envelope);
  return result;
}

/**
 * Cache writes carried in OpenAI-shaped usage as Anthropic names them (Renio's translation of
 * an Anthropic answer): `cache_creation.ephemeral_5m/1h_input_tokens`, else the whole
 * `cache_creation_input_tokens` as 5-minute writes. Parts of `inputTokens`, never beyond it.
 */
function addCacheWrites(usage: Usage, u: Record<string, unknown>): void {
  const total = count(u["cache_creation_input_tokens"]);
  if (total === undefined || total === 0) return;
  const split = u["cache_creation"];
  const oneHour = Math.min(count(field(split, "ephemeral_1h_input_tokens")) ?? 0, usage.inputTokens);
  const fiveMin = Math.min(split === undefined ? total : count(field(split, "ephemeral_5m_input_tokens")) ?? 0, usage.inputTokens - oneHour);
  if (fiveMin > 0) usage.cacheWrite5mTokens = fiveMin;
  if (oneHour > 0) usage.cacheWrite1hTokens = oneHour;
}

/** Adds an OpenAI envelope's service tier and server-tool calls to `usage`. */
function addCallDetails(usage: Usage, envelope: unknown): void {
  const tier = field(envelope, "service_tier");
  if (typeof tier === "string" && tier !== "default" && tier !== "auto") usage.serviceTier = tier;
  const model = field(envelope, "model");
  if (typeof model === "string" && model !== "") usage.responseModel = model;
  const output = field(envelope, "output");
  if (!Array.isArray(output)) return;
  for (const item of output) {
    const type = field(item, "type");
    const kind = typeof type === "string" ? OPENAI_TOOL_CALLS.get(type) : undefined;
    if (kind !== undefined) (usage.toolUses ??= {})[kind] = (usage.toolUses[kind] ?? 0) + 1;
  }
}

/** Raw Anthropic counters, updated field by field as events arrive. */
export interface AnthropicCounters {
  input?: number;
  cacheRead?: number;
  cacheCreation?: number;
  /** `cache_creation.ephemeral_5m_input_tokens` / `ephemeral_1h_input_tokens`. */
  cacheWrite5m?: number;
  cacheWrite1h?: number;
  output?: number;
  /** `server_tool_use.*_requests`, by tool kind. */
  toolUses?: Partial<Record<ServerToolKind, number>>;
  /** The message's `model`. */
  model?: string;
}

/** Records a message's `model` (a message body, or a stream's `message_start.message`) in `into`. */
export function mergeAnthropicModel(into: AnthropicCounters, message: unknown): void {
  const model = field(message, "model");
  if (typeof model === "string" && model !== "") into.model = model;
}

/** Anthropic `server_tool_use` counters, by the tool kind they count. */
const ANTHROPIC_TOOL_COUNTS: readonly (readonly [string, ServerToolKind])[] = [
  ["web_search_requests", "web_search"],
  ["web_fetch_requests", "web_fetch"],
  ["code_execution_requests", "code_execution"],
];

/**
 * Merges the counts present in an Anthropic `usage` object into `into` (fields absent or null
 * keep their previous value). Returns whether any count was present.
 */
export function mergeAnthropicUsage(into: AnthropicCounters, usage: unknown): boolean {
  const u = record(usage);
  if (u === undefined) return false;
  let seen = false;
  const input = count(u["input_tokens"]);
  if (input !== undefined) (into.input = input), (seen = true);
  const read = count(u["cache_read_input_tokens"]);
  if (read !== undefined) (into.cacheRead = read), (seen = true);
  const creation = count(u["cache_creation_input_tokens"]);
  if (creation !== undefined) (into.cacheCreation = creation), (seen = true);
  const split = u["cache_creation"];
  const write5m = count(field(split, "ephemeral_5m_input_tokens"));
  if (write5m !== undefined) (into.cacheWrite5m = write5m), (seen = true);
  const write1h = count(field(split, "ephemeral_1h_input_tokens"));
  if (write1h !== undefined) (into.cacheWrite1h = write1h), (seen = true);
  const output = count(u["output_tokens"]);
  if (output !== undefined) (into.output = output), (seen = true);
  const tools = u["server_tool_use"];
  for (const [name, kind] of ANTHROPIC_TOOL_COUNTS) {
    const uses = count(field(tools, name));
    if (uses !== undefined) ((into.toolUses ??= {})[kind] = uses), (seen = true);
  }
  return seen;
}

/**
 * Normalizes Anthropic counters: cache writes count as input (split into 1-hour writes and
 * the rest, 5-minute: a plain `cache_creation_input_tokens` without the split is all 5-minute),
 * cache reads as cached input.
 */
export function anthropicUsage(c: AnthropicCounters): Usage {
  const writes = c.cacheCreation ?? (c.cacheWrite5m ?? 0) + (c.cacheWrite1h ?? 0);
  const write1h = Math.min(c.cacheWrite1h ?? 0, writes);
  const usage: Usage = { inputTokens: (c.input ?? 0) + writes, cachedInputTokens: c.cacheRead ?? 0, outputTokens: c.output ?? 0 };
  if (writes - write1h > 0) usage.cacheWrite5mTokens = writes - write1h;
  if (write1h > 0) usage.cacheWrite1hTokens = write1h;
  if (c.model !== undefined) usage.responseModel = c.model;
  if (c.toolUses !== undefined) {
    for (const [kind, uses] of Object.entries(c.toolUses)) if (uses > 0) (usage.toolUses ??= {})[kind as ServerToolKind] = uses;
  }
  return usage;
}
