import type { UpstreamFetch } from "../upstream/node-http-fetch.ts";
import type { Runtime } from "../runtime/runtime.ts";
import { createSocketFetch } from "../upstream/socket-fetch.ts";

/** `server.upstreamClient`: how the relay calls providers. */
export type UpstreamClient = "auto" | "socket" | "fetch" | "node-http";

/**
 * Calls in flight up to which `auto` on Bun sends a call through the `socket` client; above it,
 * through Bun's `fetch`. The socket client does its reads and writes on the event loop's thread,
 * Bun's `fetch` on a thread of its own: with few calls in flight the socket client is leaner
 * (no hop between threads per chunk), with many the event loop is the busiest thread and the
 * hop buys a second core. Measured at 1, 4, 8 and 16 in flight: streams (a hop per chunk) gain
 * throughout, non-streaming calls gain at 1, are level at 4 and 8 and lose at 16 (docs/decisions/2026-12-05-upstream-client-by-load.md).
 */
export const SOCKET_CLIENT_MAX_IN_FLIGHT: LoadLine = { calls: 8, streams: 16 };

/** Calls in flight up to which a call goes through the lean client: `streams` for a call whose answer streams, `calls` for every other. */
export interface LoadLine {
  readonly calls: number;
  readonly streams: number;
}

/**
 * The `fetch` the relay's providers use. `socket`: the lean HTTP/1.1 client on node:net/node:tls
 * (socket-fetch.ts), cut-safe on both runtimes. `fetch`: the runtime's own. `node-http`: node:http
 * on Bun (cut-safe, costly), Deno's fetch on Deno. `auto` (the default): whichever measured
 * leaner on this runtime: `socket` on Deno; on Bun `socket` while at most
 * {@link SOCKET_CLIENT_MAX_IN_FLIGHT} calls are in flight (`inFlight`, the call being sent
 * included; a higher line for a streamed call), Bun's `fetch` above.
 */
export function upstreamFetchOf(runtime: Runtime, client: UpstreamClient, inFlight: () => number): UpstreamFetch {
  if (client === "socket" || (client === "auto" && runtime.name === "deno")) return createSocketFetch();
  if (client === "auto") return byLoad(createSocketFetch(), runtime.upstreamFetch, inFlight, SOCKET_CLIENT_MAX_IN_FLIGHT);
  return client === "node-http" ? runtime.cutSafeFetch : runtime.upstreamFetch;
}

/** Whether calls may go through the runtime's own fetch (`fetch`; `auto` on Bun above its line). */
export function usesRuntimeFetch(runtime: Runtime, client: UpstreamClient): boolean {
  return client === "fetch" || (client === "auto" && runtime.name === "bun");
}

/** `few` while at most `line` calls are in flight (`line.streams` for a call whose answer streams), `many` above. */
export function byLoad(few: UpstreamFetch, many: UpstreamFetch, inFlight: () => number, line: LoadLine): UpstreamFetch {
  return (url, init) => (inFlight() <= (init.streams === true ? line.streams : line.calls) ? few(url, init) : many(url, init));
}
