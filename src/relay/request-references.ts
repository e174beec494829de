/** Keys whose value names input the provider fetches or holds (not in the body). */
const REFERENCE_KEYS = new Set(["image_url", "file_url", "file_id", "audio_url", "video_url", "document_url"]);
/** Top-level fields that bring in input held by the provider (earlier turns, a container). */
const REFERENCE_FIELDS = ["previous_response_id", "conversation", "container"] as const;
/** Tool types the provider runs itself and bills per use (dated variants match by prefix). */
const SERVER_TOOLS = ["web_search", "file_search", "code_interpreter", "web_fetch", "code_execution"] as const;

/** What a request carries beyond its own bytes. */
export interface RequestReferences {
  /** True when some input is by reference (URL, file id, earlier response, container). */
  inputByReference: boolean;
  /** Server-side tools billed per use, by name. */
  serverTools: string[];
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

/**
 * Finds input the body references rather than contains, and server-side tools billed per use
 * (`tools[].type` web_search, file_search, code_interpreter, web_fetch, code_execution and their
 * dated variants; chat's `web_search_options`).
 */
export function requestReferences(body: Readonly<Record<string, unknown>>): RequestReferences {
  const inputByReference = REFERENCE_FIELDS.some((field) => (body[field] ?? null) !== null) || walk(body["messages"]) || walk(body["input"]) || walk(body["prompt"]);
  const serverTools: string[] = [];
  const tools = body["tools"];
  if (Array.isArray(tools)) {
    for (const tool of tools) {
      const type = isRecord(tool) ? tool["type"] : undefined;
      if (typeof type !== "string") continue;
      const name = SERVER_TOOLS.find((known) => type === known || type.startsWith(`${known}_`));
      if (name !== undefined && !serverTools.includes(type)) serverTools.push(type);
    }
  }
  if ((body["web_search_options"] ?? null) !== null) serverTools.push("web_search_options");
  return { inputByReference, serverTools };
}
