import { OUTPUT_LIMIT_FIELDS, type OutputLimitField } from "../providers/output-limit-field.ts";
import { requestReferences, serverToolKind, takesMaxUses, type RequestReferences } from "../pricing/request-references.ts";
import type { IdentityFields } from "../callers/call-identity.ts";
import { scanTopLevel, type TopLevelMember } from "./json-top-level.ts";

/** The request fields the relay needs, read once from the body (with those naming the end user and tags). */
export interface RequestFields extends IdentityFields {
  model?: string;
  stream: boolean;
  /** `stream_options.include_usage === true`. */
  includeUsage: boolean;
  /** The largest of `max_tokens`, `max_completion_tokens`, `max_output_tokens` present. */
  maxOutputTokens?: number;
  /** Outputs the provider generates (and bills): the largest of `n` and `best_of`; absent means 1. */
  choices?: number;
  /** `service_tier` (OpenAI: `auto`, `default`, `flex`, `priority`). */
  serviceTier?: string;
  /** `max_tool_calls` (OpenAI Responses): the bound on built-in tool calls. */
  maxToolCalls?: number;
  /** Input referenced rather than contained, and per-use server tools (requestReferences); absent when neither. */
  references?: RequestReferences;
}

/** Result of inspectRequestBody. */
/** The problem reported for a body that does not parse (Renio answers it with `invalid_json`). */
export const NOT_JSON = "request body is not valid JSON";

export type InspectedBody = { ok: true; fields: RequestFields } | { ok: false; problem: string };

/** Changes rewriteRequestBody may make. */
export interface BodyChange {
  /** New top-level `model` value. */
  model?: string;
  /** Ensure `stream_options.include_usage` is true. */
  addIncludeUsage?: boolean;
  /** Set this output-limit field when the request has none. */
  outputLimit?: { field: OutputLimitField; tokens: number };
  /** Set `max_tool_calls` (OpenAI Responses) when the request has none. */
  maxToolCalls?: number;
  /** Set `max_uses` on each Anthropic server tool in `tools` that takes one and has none. */
  toolMaxUses?: number;
}

const strictDecoder = new TextDecoder("utf-8", { fatal: true });
const decoder = new TextDecoder();
const encoder = new TextEncoder();

const CHOICE_FIELDS = ["n", "best_of"] as const;
/** Lengths of the keys rewriteRequestBody may change (others are not decoded). */
const CHANGED_KEY_LENGTHS = new Set(["model", "stream_options", "max_tool_calls", "tools", ...OUTPUT_LIMIT_FIELDS].map((key) => key.length));

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/**
 * Parses a JSON request body and reads the fields the relay needs. The body must be a JSON
 * object; `null` values count as absent. Problems are short messages naming the field.
 */
export function inspectRequestBody(bytes: Uint8Array): InspectedBody {
  let body: unknown;
  try {
    body = JSON.parse(strictDecoder.decode(bytes));
  } catch {
    return { ok: false, problem: NOT_JSON };
  }
  if (!isObject(body)) return { ok: false, problem: "request body must be a JSON object" };
  const fields: RequestFields = { stream: false, includeUsage: false };
  const references = requestReferences(body);
  if (references.inputByReference || references.serverTools.length > 0) fields.references = references;
  const model = body["model"] ?? undefined;
  if (model !== undefined) {
    if (typeof model !== "string" || model === "") return { ok: false, problem: "`model` must be a non-empty string" };
    fields.model = model;
  }
  const stream = body["stream"] ?? false;
  if (typeof stream !== "boolean") return { ok: false, problem: "`stream` must be a boolean" };
  fields.stream = stream;
  const options = body["stream_options"] ?? undefined;
  if (options !== undefined) {
    if (!isObject(options)) return { ok: false, problem: "`stream_options` must be an object" };
    fields.includeUsage = options["include_usage"] === true;
  }
  for (const name of OUTPUT_LIMIT_FIELDS) {
    const value = body[name] ?? undefined;
    if (value === undefined) continue;
    if (typeof value !== "number" || !Number.isSafeInteger(value) || value <= 0) {
      return { ok: false, problem: `\`${name}\` must be a positive integer` };
    }
    fields.maxOutputTokens = Math.max(fields.maxOutputTokens ?? 0, value);
  }
  const tier = body["service_tier"] ?? undefined;
  if (tier !== undefined) {
    if (typeof tier !== "string") return { ok: false, problem: "`service_tier` must be a string" };
    fields.serviceTier = tier;
  }
  const toolCalls = body["max_tool_calls"] ?? undefined;
  if (toolCalls !== undefined) {
    if (typeof toolCalls !== "number" || !Number.isSafeInteger(toolCalls) || toolCalls <= 0) return { ok: false, problem: "`max_tool_calls` must be a positive integer" };
    fields.maxToolCalls = toolCalls;
  }
  readIdentity(body, fields);
  for (const name of CHOICE_FIELDS) {
    const value = body[name] ?? undefined;
    if (value === undefined) continue;
    if (typeof value !== "number" || !Number.isSafeInteger(value) || value <= 0) {
      return { ok: false, problem: `\`${name}\` must be a positive integer` };
    }
    fields.choices = Math.max(fields.choices ?? 1, value);
  }
  return { ok: true, fields };
}

/** The string fields that may name the end user or carry tags; others of other types are the provider's to refuse. */
function readIdentity(body: Record<string, unknown>, fields: RequestFields): void {
  const user = body["user"];
  if (typeof user === "string") fields.user = user;
  const safety = body["safety_identifier"];
  if (typeof safety === "string") fields.safetyIdentifier = safety;
  const metadata = body["metadata"];
  if (!isObject(metadata)) return;
  const strings = new Map<string, string>();
  for (const [name, value] of Object.entries(metadata)) if (typeof value === "string") strings.set(name, value);
  if (strings.size === 0) return;
  fields.metadata = strings;
  const userId = strings.get("user_id");
  if (userId !== undefined) fields.metadataUserId = userId;
}

/**
 * Changes the minimum in a body that inspectRequestBody accepted: every top-level `"model"`
 * value is replaced in place, and `stream_options.include_usage: true` is added (inserted after
 * the opening `{` when `stream_options` is absent, else only its value is replaced by the
 * merged object), and `outputLimit` is set (inserted after the opening `{`, or a `null` value
 * replaced), as is `maxToolCalls` (`max_tool_calls`); `toolMaxUses` rewrites the `tools` value
 * with it added (withMaxUses). All other bytes are kept. Returns `bytes` itself when nothing changes.
 * Throws RelayError 400 `invalid_json` when the body is not a JSON object.
 */
export function rewriteRequestBody(bytes: Uint8Array, change: BodyChange): Uint8Array {
  // Fields set when absent (inspectRequestBody read any non-null value as the caller's own).
  const missing = new Map<string, number>();
  if (change.outputLimit !== undefined) missing.set(change.outputLimit.field, change.outputLimit.tokens);
  if (change.maxToolCalls !== undefined) missing.set("max_tool_calls", change.maxToolCalls);
  if (change.model === undefined && change.addIncludeUsage !== true && missing.size === 0 && change.toolMaxUses === undefined) return bytes;
  const top = scanTopLevel(bytes, CHANGED_KEY_LENGTHS);
  const splices: Splice[] = [];
  let hasModel = false;
  let hasOptions = false;
  const present = new Set<string>();
  for (const member of top.members) {
    const value = missing.get(member.key);
    if (value !== undefined) {
      // Only a `null` value reaches here.
      present.add(member.key);
      splices.push({ ...member, text: String(value) });
      continue;
    }
    if (member.key === "model" && change.model !== undefined) {
      hasModel = true;
      const text = JSON.stringify(change.model);
      if (!sameBytes(bytes, member, text) && valueOf(bytes, member) !== change.model) splices.push({ ...member, text });
    } else if (member.key === "tools" && change.toolMaxUses !== undefined) {
      const tools = withMaxUses(valueOf(bytes, member), change.toolMaxUses);
      if (tools !== undefined) splices.push({ ...member, text: JSON.stringify(tools) });
    } else if (member.key === "stream_options" && change.addIncludeUsage === true) {
      hasOptions = true;
      const current = valueOf(bytes, member);
      if (isObject(current) && current["include_usage"] === true) continue;
      const merged = isObject(current) ? { ...current, include_usage: true } : { include_usage: true };
      splices.push({ ...member, text: JSON.stringify(merged) });
    }
  }
  const inserted: string[] = [];
  for (const [field, value] of missing) if (!present.has(field)) inserted.push(`"${field}":${value}`);
  if (change.addIncludeUsage === true && !hasOptions) inserted.push('"stream_options":{"include_usage":true}');
  if (change.model !== undefined && !hasModel) inserted.push(`"model":${JSON.stringify(change.model)}`);
  if (inserted.length > 0) {
    const at = top.open + 1;
    splices.unshift({ start: at, end: at, text: inserted.join(",") + (top.members.length > 0 ? "," : "") });
  }
  return splices.length === 0 ? bytes : applySplices(bytes, splices);
}

/** `tools` with `max_uses` set on each server tool that takes one and has none; undefined when none changes. */
function withMaxUses(tools: unknown, maxUses: number): unknown[] | undefined {
  if (!Array.isArray(tools)) return undefined;
  let changed = false;
  const out = tools.map((tool: unknown) => {
    if (!isObject(tool) || typeof tool["type"] !== "string" || (tool["max_uses"] ?? null) !== null) return tool;
    const kind = serverToolKind(tool["type"]);
    if (kind === undefined || !takesMaxUses(kind)) return tool;
    changed = true;
    return { ...tool, max_uses: maxUses };
  });
  return changed ? out : undefined;
}

interface Splice {
  start: number;
  end: number;
  text: string;
}

function valueOf(bytes: Uint8Array, member: TopLevelMember): unknown {
  return JSON.parse(decoder.decode(bytes.subarray(member.start, member.end)));
}

/** Whether the member's value is exactly the ASCII `text`. */
function sameBytes(bytes: Uint8Array, member: TopLevelMember, text: string): boolean {
  if (member.end - member.start !== text.length) return false;
  for (let i = 0; i < text.length; i++) if (bytes[member.start + i] !== text.charCodeAt(i)) return false;
  return true;
}

function applySplices(bytes: Uint8Array, splices: readonly Splice[]): Uint8Array {
  const texts = splices.map((splice) => encoder.encode(splice.text));
  let length = bytes.length;
  splices.forEach((splice, i) => (length += texts[i]!.length - (splice.end - splice.start)));
  const out = new Uint8Array(length);
  let from = 0;
  let to = 0;
  splices.forEach((splice, i) => {
    out.set(bytes.subarray(from, splice.start), to);
    to += splice.start - from;
    out.set(texts[i]!, to);
    to += texts[i]!.length;
    from = splice.end;
  });
  out.set(bytes.subarray(from), to);
  return out;
}
