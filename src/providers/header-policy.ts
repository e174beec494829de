import type { WireFormat } from "../shared/usage.ts";

/**
 * Which request headers and query parameters go to a provider, and which response headers come
 * back to the client, on each path: a call passed through to a provider of the caller's wire
 * (`openai`, `anthropic`) or translated to the other wire (`translated`). The rows below are the
 * policy; docs/headers.md renders them as its table (test/e2e/providers/header-policy-docs.test.ts keeps the
 * two equal). Names are matched case-insensitively, an exact name before a `prefix-*` one,
 * prefixes in row order; `*` is every name no other row names.
 */

/** A call's path through Renio, for this policy. */
export type HeaderPath = WireFormat | "translated";

/** What happens to a name on one path. */
export type Rule = "forwarded" | "never" | "renamed" | "set by Renio";

/** One row of the policy: the names it covers, the rule on each path, and why. */
export interface PolicyRow {
  readonly names: readonly string[];
  readonly openai: Rule;
  readonly anthropic: Rule;
  readonly translated: Rule;
  readonly why: string;
}

const row = (names: string[], openai: Rule, anthropic: Rule, translated: Rule, why: string): PolicyRow => ({ names, openai, anthropic, translated, why });
const never = (names: string[], why: string): PolicyRow => row(names, "never", "never", "never", why);

/** Request headers from the client to the provider. */
export const REQUEST_HEADERS: readonly PolicyRow[] = [
  never(["authorization", "x-api-key"], "Renio's key: the provider's own credentials are sent instead"),
  never(["api-key", "x-goog-api-key", "proxy-authorization", "cookie"], "other credentials"),
  never(["host", "connection", "keep-alive", "proxy-connection", "te", "trailer", "transfer-encoding", "upgrade", "expect", "content-length", "content-type"], "hop-by-hop and framing: Renio sends its own"),
  never(["accept-encoding"], "Renio reads the answer for its usage, so it asks for it uncompressed"),
  never(["forwarded", "x-forwarded-*", "x-real-ip", "via", "origin", "referer"], "the client's address and origin stay with Renio"),
  row(["x-request-id", "traceparent", "tracestate"], "set by Renio", "set by Renio", "set by Renio", "Renio sends its journal entry id and its span (a client's traceparent and tracestate when tracing is off)"),
  never(["x-renio-*"], "Renio's own (such as `x-renio-timeout-ms`)"),
  never(["openai-organization", "openai-project"], "they pick the account Renio's key bills: set them in the provider's `headers`"),
  row(["openai-*"], "forwarded", "never", "never", "OpenAI's own (`openai-beta`)"),
  row(["anthropic-*"], "never", "forwarded", "never", "Anthropic's own (`anthropic-beta`, `anthropic-version`; without one, the provider's `version`)"),
  never(["x-goog-*", "x-amz-*"], "another provider's"),
  row(["idempotency-key"], "forwarded", "forwarded", "forwarded", "names the call, whichever wire carries it"),
  row(["*"], "forwarded", "forwarded", "never", "the caller and its SDK, addressed to a provider of its wire (`accept`, `user-agent`, `x-stainless-*`, Claude Code's `x-app`, Codex's `originator` and `session-id`)"),
];

/** Query parameters of the client's URL. */
export const QUERY_PARAMETERS: readonly PolicyRow[] = [
  never(["key", "api-key", "api_key", "access_token"], "credentials"),
  never(["api-version"], "Azure's: the provider's `apiVersion` sets it"),
  row(["*"], "forwarded", "forwarded", "never", "the caller's wire's own (Claude Code's `?beta=true`)"),
];

/** Response headers from the provider to the client. */
export const RESPONSE_HEADERS: readonly PolicyRow[] = [
  never(["connection", "keep-alive", "transfer-encoding", "content-length", "content-encoding"], "hop-by-hop and framing: Renio sends its own"),
  never(["set-cookie", "alt-svc", "strict-transport-security", "date", "server", "via", "cf-ray"], "the provider's connection, cookies and edge"),
  never(["openai-organization", "openai-project", "anthropic-organization-id"], "Renio's account with the provider"),
  row(["x-request-id", "request-id"], "renamed", "renamed", "renamed", "sent as `x-upstream-request-id`: Renio's own request id takes the name"),
  row(["retry-after", "retry-after-ms", "x-should-retry"], "forwarded", "forwarded", "forwarded", "retry advice every SDK reads"),
  row(["content-type"], "forwarded", "forwarded", "forwarded", "a translated answer's is its caller's format's"),
  row(["*"], "forwarded", "forwarded", "never", "the provider of the answer's own (`openai-processing-ms`, `x-ratelimit-*`, `anthropic-ratelimit-*`)"),
];

/** A policy compiled for one path: exact names, then prefixes in order, then the default. */
interface Compiled {
  readonly exact: ReadonlyMap<string, Rule>;
  readonly prefixes: ReadonlyArray<readonly [string, Rule]>;
  readonly otherwise: Rule;
  /** Only these exact names are forwarded (no prefix or default forwards): read them by name instead of scanning every header. */
  readonly only: readonly string[] | undefined;
}

function compile(rows: readonly PolicyRow[], path: HeaderPath): Compiled {
  const exact = new Map<string, Rule>();
  const prefixes: Array<[string, Rule]> = [];
  let otherwise: Rule = "never";
  for (const policy of rows) {
    for (const name of policy.names) {
      if (name === "*") otherwise = policy[path];
      else if (name.endsWith("*")) prefixes.push([name.slice(0, -1), policy[path]]);
      else if (!exact.has(name)) exact.set(name, policy[path]);
    }
  }
  const scan = otherwise === "forwarded" || prefixes.some(([, rule]) => rule === "forwarded");
  const only = scan ? undefined : [...exact].filter(([, rule]) => rule === "forwarded").map(([name]) => name);
  return { exact, prefixes, otherwise, only };
}

function compileAll(rows: readonly PolicyRow[]): Readonly<Record<HeaderPath, Compiled>> {
  return { openai: compile(rows, "openai"), anthropic: compile(rows, "anthropic"), translated: compile(rows, "translated") };
}

const REQUEST = compileAll(REQUEST_HEADERS);
const QUERY = compileAll(QUERY_PARAMETERS);
const RESPONSE = compileAll(RESPONSE_HEADERS);

/** The rule for a lower-case `name`. */
function ruleOf(policy: Compiled, name: string): Rule {
  const exact = policy.exact.get(name);
  if (exact !== undefined) return exact;
  for (const [prefix, rule] of policy.prefixes) if (name.startsWith(prefix)) return rule;
  return policy.otherwise;
}

/** The path of a call: translated when the provider answers callers of the other wire through translation. */
export function headerPathOf(wire: WireFormat, translated: boolean): HeaderPath {
  return translated ? "translated" : wire;
}

/**
 * The headers of `from` that `policy` forwards. A copy made natively, the others deleted by
 * name: cheaper on the request path than appending each kept header (iterating a Headers
 * object costs more than copying it); a policy that forwards only named headers reads those.
 */
function kept(from: Headers, policy: Compiled): Headers {
  if (policy.only !== undefined) {
    const headers = new Headers();
    for (const name of policy.only) {
      const value = from.get(name);
      if (value !== null) headers.set(name, value);
    }
    return headers;
  }
  const headers = new Headers(from);
  for (const name of from.keys()) if (ruleOf(policy, name) !== "forwarded") headers.delete(name);
  return headers;
}

/** The client's request headers that go to the provider on `path` (Renio then adds credentials, its request id and trace). */
export function upstreamRequestHeaders(client: Headers, path: HeaderPath): Headers {
  return kept(client, REQUEST[path]);
}

/** The query string (`""`, or `?` and the parameters kept, as the client wrote them) that goes to the provider on `path`. */
export function upstreamQuery(url: string, path: HeaderPath): string {
  const at = url.indexOf("?");
  if (at < 0 || at === url.length - 1) return "";
  const hash = url.indexOf("#", at);
  const kept = url
    .slice(at + 1, hash < 0 ? undefined : hash)
    .split("&")
    .filter((pair) => pair !== "" && ruleOf(QUERY[path], decodeName(pair.split("=", 1)[0]!)) === "forwarded");
  return kept.length === 0 ? "" : `?${kept.join("&")}`;
}

function decodeName(name: string): string {
  try {
    return decodeURIComponent(name.replaceAll("+", " ")).toLowerCase();
  } catch {
    return name.toLowerCase();
  }
}

/** The provider's response headers a client sees on `path`; the provider's request id comes back as `x-upstream-request-id`. */
export function clientResponseHeaders(upstream: Headers, path: HeaderPath): Headers {
  const headers = kept(upstream, RESPONSE[path]);
  const upstreamId = upstream.get("x-request-id") ?? upstream.get("request-id");
  if (upstreamId !== null) headers.set("x-upstream-request-id", upstreamId);
  return headers;
}
