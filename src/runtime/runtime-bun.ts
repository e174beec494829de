import { dirname } from "node:path";
import type { Runtime, Server, ServeOptions } from "./runtime.ts";
import { createNodeHttpFetch } from "./node-http-fetch.ts";
import { openBunSqlite } from "./sqlite-bun.ts";

/** The Bun runtime: Bun.serve and bun:sqlite. */
export const bunRuntime: Runtime = {
  name: "bun",
  version: Bun.version,
  serve: (options: ServeOptions): Promise<Server> => {
    const server = Bun.serve({
      hostname: options.hostname,
      port: options.port,
      idleTimeout: options.idleTimeoutSeconds ?? 120,
      // Bodies of any size reach the handler, which refuses what is over its limit in its own envelope (413), never Bun's bare one.
      maxRequestBodySize: Number.MAX_SAFE_INTEGER,
      // Never Bun's development error page (a stack and source) for an error that escapes the handler.
      development: false,
      ...(options.onError === undefined ? {} : { error: options.onError }),
      fetch: (request, bunServer) =>
        options.fetch(request, { remoteAddress: bunServer.requestIP(request)?.address ?? "" }),
    });
    return Promise.resolve({
      hostname: server.hostname ?? options.hostname,
      port: server.port ?? options.port,
      stop: () => server.stop(false),
    });
  },
  // Bun's fetch drops the received bytes of a body whose connection ends early: node:http keeps them.
  upstreamFetch: (url, init) => fetch(url, init),
  cutSafeFetch: createNodeHttpFetch(),
  openSqlite: openBunSqlite,
  // Compiled, the worker is embedded beside the entry point (scripts/build.sh adds it to the build).
  storeWorker: () =>
    new Worker(isCompiled() ? `${dirname(Bun.main)}/store-worker-bun.ts` : new URL("../store-worker-bun.ts", import.meta.url).href),
  selfCommand: () => (isCompiled() ? [process.execPath] : [process.execPath, Bun.main]),
};

/** True inside a `bun build --compile` executable. */
export function isCompiled(): boolean {
  return Bun.main.startsWith("/$bunfs/") || Bun.main.includes("~BUN");
}
