import type { WireFormat } from "../shared/usage.ts";
import type { Fetch, Provider, UpstreamCall, UpstreamEndpoint } from "./provider.ts";

/** What distinguishes one HTTP provider from another. */
export interface HttpProviderSpec {
  readonly id: string;
  /** Region and timeouts, as every provider's config has them. */
  readonly settings: { readonly region: string; readonly connectTimeoutMs: number; readonly firstByteTimeoutMs: number };
  readonly wires: ReadonlySet<WireFormat>;
  /** Upstream URL for a public route path such as "/v1/chat/completions". */
  urlFor(path: string): string;
  /** Credentials and fixed headers; applied after the forwarded client headers. */
  readonly fixedHeaders: Readonly<Record<string, string>>;
  /** Headers set only when the client did not send them (e.g. anthropic-version). */
  readonly defaultHeaders?: Readonly<Record<string, string>>;
  readonly fetch: Fetch;
  /**
   * Per-call step before sending (a URL naming the body's model, a fresh auth token): gets the
   * route's URL and the headers to send, returns the URL to send to, or a Response to answer with instead.
   */
  readonly prepare?: (call: UpstreamCall, url: string, headers: Headers) => Promise<string | Response>;
  /** Served in this process (no socket): no endpoint, so no connection check. */
  readonly inProcess?: boolean;
}

/** A provider that POSTs the call's body to `urlFor(route.path)`. */
export function createHttpProvider(spec: HttpProviderSpec): Provider {
  const urls = new Map<string, string>();
  const urlFor = (path: string): string => {
    let url = urls.get(path);
    if (url === undefined) urls.set(path, (url = spec.urlFor(path)));
    return url;
  };
  const fixed = Object.entries(spec.fixedHeaders);
  const defaults = Object.entries(spec.defaultHeaders ?? {});
  return {
    id: spec.id,
    region: spec.settings.region,
    wires: spec.wires,
    connectTimeoutMs: spec.settings.connectTimeoutMs,
    firstByteTimeoutMs: spec.settings.firstByteTimeoutMs,
    ...(spec.inProcess ? {} : { endpoint: endpointOf(spec.urlFor("/")) }),
    async send(call: UpstreamCall): Promise<Response> {
      const headers = call.headers;
      for (const [name, value] of defaults) if (!headers.has(name)) headers.set(name, value);
      for (const [name, value] of fixed) headers.set(name, value);
      headers.set("content-type", "application/json");
      headers.set("x-request-id", call.requestId);
      const base = withQuery(urlFor(call.route.path), call.query);
      const url = spec.prepare ? await spec.prepare(call, base, headers) : base;
      if (url instanceof Response) return url;
      return spec.fetch(url, { method: "POST", headers, body: call.body, signal: call.signal, streams: call.streams });
    },
  };
}

/** Host and port of an http(s) URL (default ports filled in, IPv6 brackets removed). */
export function endpointOf(url: string): UpstreamEndpoint {
  const parsed = new URL(url);
  const port = parsed.port === "" ? (parsed.protocol === "https:" ? 443 : 80) : Number(parsed.port);
  return { hostname: parsed.hostname.replace(/^\[(.*)\]$/, "$1"), port };
}

/** `url` with the client's query parameters (`""` or `?…`) after its own. */
export function withQuery(url: string, query: string): string {
  if (query === "") return url;
  return url.includes("?") ? `${url}&${query.slice(1)}` : url + query;
}

/** Joins a base URL and a path without doubling slashes. */
export function joinUrl(base: string, path: string): string {
  return base.replace(/\/+$/, "") + "/" + path.replace(/^\/+/, "");
}
