import type { RouteSpec } from "../shared/route-spec.ts";
import type { WireFormat } from "../shared/usage.ts";
import type { UpstreamFetch } from "../upstream/node-http-fetch.ts";

/** The upstream `fetch` (the global one's shape, with the streamed-answer hint); injected so tests and the in-process mock need no network. */
export type Fetch = UpstreamFetch;

/** One call to forward, already authenticated, routed, journaled and charged. */
export interface UpstreamCall {
  readonly route: RouteSpec;
  /** The body to send (model already rewritten). */
  readonly body: Uint8Array<ArrayBuffer>;
  /** The upstream model of the target the relay picked (the one written into the body). */
  readonly model: string;
  /** The client's headers that go to the provider (header-policy.ts); the provider adds its own. */
  readonly headers: Headers;
  /** The client's query parameters that go to the provider: `""` or `?…` (header-policy.ts). */
  readonly query: string;
  readonly requestId: string;
  readonly signal: AbortSignal;
  /** The client asked for a streamed answer (passed to the upstream client as a hint). */
  readonly streams: boolean;
}

/** Where an upstream listens. */
export interface UpstreamEndpoint {
  readonly hostname: string;
  readonly port: number;
}

/** A configured upstream. Providers know wire details, never Hono, http or the relay. */
export interface Provider {
  readonly id: string;
  readonly region: string;
  /** Wire formats this provider speaks. */
  readonly wires: ReadonlySet<WireFormat>;
  readonly connectTimeoutMs: number;
  readonly firstByteTimeoutMs: number;
  /** Answers callers of the other wire format through translation (the header policy's `translated` path). */
  readonly translated?: boolean;
  /** The upstream's TCP endpoint, for the relay's connection check; absent for in-process providers. */
  readonly endpoint?: UpstreamEndpoint;
  /** Sends the call and returns the raw upstream response (status, headers, unread body). */
  send(call: UpstreamCall): Promise<Response>;
}
