/** Keys whose value names input the provider fetches or holds (not in the body). */
const REFERENCE_KEYS = new Set(["image_url", "file_url", "file_id", "audio_url", "video_url", "document_url"]);
/** Top-level fields that bring in input held by the provider (earlier turns, a container). */
const REFERENCE_FIELDS = ["previous_response_id", "conversation", "container"] as const;
import { SERVER_TOOL_KINDS, type ServerToolKind } from "../shared/usage.ts";

/** A server-side tool in a request: its type as sent, the kind it is billed as, and its own bound on uses. */
export interface ServerTool {
  /** `tools[].type` as sent (`web_search_20250305`, `web_search_preview`), or `web_search_options`. */
  type: string;
  kind: ServerToolKind;
  /** The tool's `max_uses` (Anthropic), when set. */
  maxUses?: number;
}

/** What a request carries beyond its own bytes. */
export interface RequestReferences {
  /** True when some input is by reference (URL, file id, earlier response, container). */
  inputByReference: boolean;
  /** Server-side tools billed per use, in request order, each type once. */
  serverTools: ServerTool[];
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/** A value that references input: anything but null, an inline `data:` URL or an object holding one. */
function references(value: unknown): boolean {
  if (value === null || value === undefined) return false;
  if (typeof value === "string") return !value.startsWith("data:");
  if (isRecord(value) && "url" in value) return references(value["url"]);
  return true;
}

function walk(value: unknown): boolean {
  if (Array.isArray(value)) return value.some(walk);
  if (!isRecord(value)) return false;
  for (const [key, inner] of Object.entries(value)) {
    if (REFERENCE_KEYS.has(key) && references(inner)) return true;
    // Anthropic sources: {type: "url", url} and {type: "file", file_id}.
    if (key === "source" && isRecord(inner) && (inner["type"] === "url" || inner["type"] === "file")) return true;
    if (typeof inner === "object" && walk(inner)) return true;
  }
  return false;
}

/** The per-use server tool kind of a `tools[].type`: dated variants (`web_search_20250305`) and previews (`web_search_preview`) are their kind. */
export function serverToolKind(type: string): ServerToolKind | undefined {
  return SERVER_TOOL_KINDS.find((known) => type === known || type.startsWith(`${known}_`));
}

/** Server tools whose Anthropic definition takes a `max_uses` bound. */
const MAX_USES_KINDS: ReadonlySet<ServerToolKind> = new Set(["web_search", "web_fetch"]);

/** Whether an Anthropic server tool of `kind` takes `max_uses`. */
export function takesMaxUses(kind: ServerToolKind): boolean {
  return MAX_USES_KINDS.has(kind);
}

/**
 * Finds input the body references rather than contains, and server-side tools billed per use
 * (`tools[].type` web_search, file_search, code_interpreter, web_fetch, code_execution and their
 * dated variants, with their `max_uses`; chat's `web_search_options`). A request with a server
 * tool has input by reference: the tool's results.
 */
export function requestReferences(body: Readonly<Record<string, unknown>>): RequestReferences {
  const inputByReference = REFERENCE_FIELDS.some((field) => (body[field] ?? null) !== null) || walk(body["messages"]) || walk(body["input"]) || walk(body["prompt"]);
  const serverTools: ServerTool[] = [];
  const tools = body["tools"];
  if (Array.isArray(tools)) {
    for (const tool of tools) {
      const type = isRecord(tool) ? tool["type"] : undefined;
      if (typeof type !== "string") continue;
      const kind = serverToolKind(type);
      if (kind === undefined || serverTools.some((seen) => seen.type === type)) continue;
      const maxUses = (tool as Record<string, unknown>)["max_uses"];
      serverTools.push(typeof maxUses === "number" && Number.isSafeInteger(maxUses) && maxUses > 0 ? { type, kind, maxUses } : { type, kind });
    }
  }
  if ((body["web_search_options"] ?? null) !== null) serverTools.push({ type: "web_search_options", kind: "web_search" });
  // A server tool's results (search hits, fetched pages, files) join the input unseen in the body.
  return { inputByReference: inputByReference || serverTools.length > 0, serverTools };
}
