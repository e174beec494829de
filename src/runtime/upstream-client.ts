import type { UpstreamFetch } from "./node-http-fetch.ts";
import type { Runtime } from "./runtime.ts";
import { createSocketFetch } from "./socket-fetch.ts";

/** `server.upstreamClient`: how the relay calls providers. */
export type UpstreamClient = "socket" | "fetch" | "node-http";

/**
 * The `fetch` the relay's providers use. `socket` (the default): the lean HTTP/1.1 client on
 * node:net/node:tls (socket-fetch.ts), cut-safe on both runtimes. `fetch`: the runtime's own.
 * `node-http`: node:http on Bun (cut-safe, costly), Deno's fetch on Deno.
 */
export function upstreamFetchOf(runtime: Runtime, client: UpstreamClient): UpstreamFetch {
  if (client === "socket") return createSocketFetch();
  return client === "node-http" ? runtime.cutSafeFetch : runtime.upstreamFetch;
}
