/** Client request headers forwarded upstream (everything else, credentials above all, is dropped). */
const FORWARDED_REQUEST_HEADERS = [
  "accept",
  "anthropic-beta",
  "anthropic-version",
  "openai-beta",
  "user-agent",
  "x-stainless-helper-method",
  // The built-in mock's per-request fault knob (tests, benchmarks); real providers ignore it.
  "x-mock-fault",
];

/** Upstream response headers never passed back to the client. */
const DROPPED_RESPONSE_HEADERS = new Set([
  "connection",
  "keep-alive",
  "transfer-encoding",
  "content-length",
  "content-encoding",
  "set-cookie",
  "alt-svc",
  "date",
  "server",
  "via",
  "x-request-id",
  "request-id",
  "openai-organization",
  "openai-project",
  "anthropic-organization-id",
  "cf-ray",
  "strict-transport-security",
]);

/** Picks the client headers that may be forwarded to a provider. */
export function forwardableRequestHeaders(client: Headers): Headers {
  const headers = new Headers();
  for (const name of FORWARDED_REQUEST_HEADERS) {
    const value = client.get(name);
    if (value !== null) headers.set(name, value);
  }
  return headers;
}

/** Copies the upstream response headers a client may see; the upstream request id is kept as x-upstream-request-id. */
export function clientResponseHeaders(upstream: Headers): Headers {
  const headers = new Headers();
  upstream.forEach((value, name) => {
    if (!DROPPED_RESPONSE_HEADERS.has(name)) headers.set(name, value);
  });
  const upstreamId = upstream.get("x-request-id") ?? upstream.get("request-id");
  if (upstreamId !== null) headers.set("x-upstream-request-id", upstreamId);
  return headers;
}
