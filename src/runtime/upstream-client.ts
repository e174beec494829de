import type { UpstreamFetch } from "./node-http-fetch.ts";
import type { Runtime } from "./runtime.ts";
import { createSocketFetch } from "./socket-fetch.ts";

/** `server.upstreamClient`: how the relay calls providers. */
export type UpstreamClient = "auto" | "socket" | "fetch" | "node-http";

/**
 * The `fetch` the relay's providers use. `socket`: the lean HTTP/1.1 client on node:net/node:tls
 * (socket-fetch.ts), cut-safe on both runtimes. `fetch`: the runtime's own. `node-http`: node:http
 * on Bun (cut-safe, costly), Deno's fetch on Deno. `auto` (the default): whichever measured
 * leaner on this runtime: `socket` on Deno, Bun's `fetch` on Bun (README, Performance).
 */
export function upstreamFetchOf(runtime: Runtime, client: UpstreamClient): UpstreamFetch {
  if (client === "socket" || (client === "auto" && runtime.name === "deno")) return createSocketFetch();
  return client === "node-http" ? runtime.cutSafeFetch : runtime.upstreamFetch;
}
