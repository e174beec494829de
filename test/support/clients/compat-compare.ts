import type { Received } from "./agent-upstream.ts";

/**
 * What the provider received directly from a client against what it received through Renio:
 * equal but for Renio's documented changes (docs/clients.md). Values that differ between any two
 * runs of a client (session and request ids, the run's HOME, timestamps) are masked first.
 */

type Json = Record<string, unknown>;

/** The output-limit fields of the wire formats. */
const OUTPUT_LIMIT_FIELDS = ["max_tokens", "max_completion_tokens", "max_output_tokens"];

/** Request headers Renio sets itself (docs/headers.md): the transport's framing, and its request id. */
const RENIO_SETS = new Set(["host", "content-length", "content-type", "connection", "keep-alive", "accept-encoding", "transfer-encoding", "te", "x-request-id"]);

/** Masks what differs from run to run of a client. */
function masked(text: string, homes: readonly string[]): string {
  let out = text;
  for (const home of homes) out = out.replaceAll(home, "<home>");
  return out
    .replace(/[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/gi, "<uuid>")
    .replace(/\b[0-9a-f]{32,}\b/gi, "<hex>")
    .replace(/\b1[7-9]\d{11}\b/g, "<epoch-ms>");
}

/** JSON with every object's keys in order (a client may serialize a map in any order from run to run). */
function canonical(value: unknown): string {
  return JSON.stringify(value, (_key, inner: unknown) =>
    inner !== null && typeof inner === "object" && !Array.isArray(inner) ? Object.fromEntries(Object.entries(inner as Json).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))) : inner,
  );
}

/** The fields Renio may add to a body that lacks them under a strict budget, each a documented change. */
function renioAdditions(direct: Json, via: Json): { body: Json; added: string[] } {
  const body: Json = { ...via };
  const added: string[] = [];
  for (const field of [...OUTPUT_LIMIT_FIELDS, "max_tool_calls"]) {
    if (direct[field] === undefined && body[field] !== undefined) (delete body[field], added.push(`+${field}`));
  }
  const options = body["stream_options"] as Json | undefined;
  if (body["stream"] === true && (direct["stream_options"] as Json | undefined)?.["include_usage"] !== true && options?.["include_usage"] === true) {
    const { include_usage: _usage, ...rest } = options;
    if (Object.keys(rest).length === 0) delete body["stream_options"];
    else body["stream_options"] = rest;
    added.push("+stream_options.include_usage");
  }
  if (Array.isArray(body["tools"]) && Array.isArray(direct["tools"])) {
    const tools = (body["tools"] as Json[]).map((tool, i) => {
      const own = (direct["tools"] as Json[])[i];
      if (own?.["max_uses"] !== undefined || tool["max_uses"] === undefined) return tool;
      added.push("+tools[].max_uses");
      const { max_uses: _uses, ...rest } = tool;
      return rest;
    });
    body["tools"] = tools;
  }
  return { body, added };
}

/** The request headers a client chose, masked (Renio's own left out). */
function chosenHeaders(headers: Headers, homes: readonly string[]): Json {
  const out: Json = {};
  headers.forEach((value, name) => {
    if (!RENIO_SETS.has(name)) out[name] = masked(value, homes);
  });
  return out;
}

/** How the provider's view of a pass-through run compares: the differences found, and which of them are not Renio's documented ones. */
export interface ProviderView {
  /** Renio's documented changes seen (`+max_output_tokens`, …), each once. */
  readonly documented: string[];
  /** Anything else that differs. */
  readonly undocumented: string[];
}

/** Compares what the provider received on a pass-through: the same requests, in order, equal but for Renio's documented changes. */
export function compareProviderView(direct: readonly Received[], via: readonly Received[], homes: readonly string[]): ProviderView {
  const documented = new Set<string>();
  const undocumented: string[] = [];
  const calls = (list: readonly Received[]) => list.map((r) => `${r.method} ${r.path}${r.query}`);
  if (calls(direct).join("\n") !== calls(via).join("\n")) {
    undocumented.push(`requests differ: direct [${calls(direct).join(", ")}], via Renio [${calls(via).join(", ")}]`);
    return { documented: [], undocumented };
  }
  direct.forEach((own, i) => {
    const relayed = via[i]!;
    const { body, added } = relayed.body === null || own.body === null ? { body: relayed.body, added: [] } : renioAdditions(own.body, relayed.body);
    added.forEach((change) => documented.add(change));
    const ownBody = masked(canonical(own.body), homes);
    const viaBody = masked(canonical(body), homes);
    if (ownBody !== viaBody) undocumented.push(`request ${i + 1} (${own.path}): body differs at ${firstDifference(ownBody, viaBody)}`);
    const ownHeaders = chosenHeaders(own.headers, homes);
    const viaHeaders = chosenHeaders(relayed.headers, homes);
    for (const name of new Set([...Object.keys(ownHeaders), ...Object.keys(viaHeaders)])) {
      if (ownHeaders[name] !== viaHeaders[name]) undocumented.push(`request ${i + 1}: header ${name}: ${String(ownHeaders[name])} directly, ${String(viaHeaders[name])} through Renio`);
    }
  });
  return { documented: [...documented], undocumented };
}

/** The translated side: every request on the other wire answered (not refused as the real API would), none carrying the caller's wire's headers or query. */
export function checkTranslated(via: readonly Received[], callerWire: "openai" | "anthropic"): string[] {
  const problems: string[] = [];
  const foreign = callerWire === "anthropic" ? /^(anthropic-|x-stainless-|x-app$|x-claude)/ : /^(openai-|x-stainless-)/;
  const otherWire = (path: string) => (callerWire === "anthropic") !== path.startsWith("/v1/messages");
  via.forEach((request, i) => {
    if (request.method !== "POST" || !otherWire(request.path)) return;
    if (request.status >= 400 && request.status !== 500 && request.status !== 529) problems.push(`request ${i + 1} (${request.path}) refused by the provider: ${request.status}`);
    if (request.query !== "") problems.push(`request ${i + 1}: query ${request.query} reached the other provider`);
    request.headers.forEach((_, name) => {
      if (foreign.test(name)) problems.push(`request ${i + 1}: the caller's header ${name} reached the other provider`);
    });
  });
  return problems;
}

/** Where two strings first differ, with a little context. */
function firstDifference(a: string, b: string): string {
  let i = 0;
  while (i < a.length && i < b.length && a[i] === b[i]) i++;
  return `offset ${i}: …${a.slice(Math.max(0, i - 40), i + 40)}… directly, …${b.slice(Math.max(0, i - 40), i + 40)}… through Renio`;
}
