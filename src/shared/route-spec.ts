import type { WireFormat } from "./usage.ts";

/** A model-call route Renio relays. */
export interface RouteSpec {
  /** Public path, e.g. "/v1/chat/completions". */
  readonly path: string;
  readonly wire: WireFormat;
  /** Whether the route produces billable output (false: embeddings, token counting). */
  readonly hasOutput: boolean;
  /** Whether calls cost money (false: token counting). */
  readonly billable: boolean;
  /** Whether `stream: true` is meaningful. */
  readonly streams: boolean;
}

/** Every model-call route, by path. */
export const ROUTES: ReadonlyMap<string, RouteSpec> = new Map(
  ([
    { path: "/v1/chat/completions", wire: "openai", hasOutput: true, billable: true, streams: true },
    { path: "/v1/completions", wire: "openai", hasOutput: true, billable: true, streams: true },
    { path: "/v1/responses", wire: "openai", hasOutput: true, billable: true, streams: true },
    { path: "/v1/embeddings", wire: "openai", hasOutput: false, billable: true, streams: false },
    { path: "/v1/messages", wire: "anthropic", hasOutput: true, billable: true, streams: true },
    { path: "/v1/messages/count_tokens", wire: "anthropic", hasOutput: false, billable: false, streams: false },
  ] satisfies RouteSpec[]).map((route: RouteSpec) => [route.path, route]),
);
