import { dirname } from "node:path";
import type { Runtime, Server, ServeOptions } from "./runtime.ts";
import { createNodeHttpFetch } from "../upstream/node-http-fetch.ts";
import { openBunSqlite } from "./sqlite-bun.ts";

/** Bun's default cap on fetch requests in flight; the rest wait inside its HTTP client. */
const BUN_FETCH_DEFAULT_LIMIT = 256;

/** The Bun runtime: Bun.serve and bun:sqlite. */
export const bunRuntime: Runtime = {
  name: "bun",
  version: Bun.version,
  serve: (options: ServeOptions): Promise<Server> => {
    const idleTimeout = options.idleTimeoutSeconds ?? 120;
    const server = Bun.serve({
      hostname: options.hostname,
      port: options.port,
      idleTimeout,
      // Bodies of any size reach the handler, which refuses what is over its limit in its own envelope (413), never Bun's bare one.
      maxRequestBodySize: Number.MAX_SAFE_INTEGER,
      // Never Bun's development error page (a stack and source) for an error that escapes the handler.
      development: false,
      reusePort: options.reusePort === true,
      ...(options.onError === undefined ? {} : { error: options.onError }),
      fetch: (request, bunServer) =>
        options.fetch(request, {
          remoteAddress: bunServer.requestIP(request)?.address ?? "",
          untimed:
            idleTimeout > 0
              ? () => {
                  bunServer.timeout(request, 0);
                  return () => restoreTimeout(bunServer, request, idleTimeout);
                }
              : undefined,
        }),
    });
    return Promise.resolve({
      hostname: server.hostname ?? options.hostname,
      port: server.port ?? options.port,
      stop: () => server.stop(false),
    });
  },
  upstreamFetchLimit: bunFetchLimit(process.env.BUN_CONFIG_MAX_HTTP_REQUESTS),
  // Bun's fetch drops the received bytes of a body whose connection ends early: node:http keeps them.
  upstreamFetch: (url, init) => fetch(url, init),
  cutSafeFetch: createNodeHttpFetch(),
  openSqlite: openBunSqlite,
  // Compiled, the worker is embedded beside the entry point (scripts/build.sh adds it to the build).
  storeWorker: () =>
    new Worker(isCompiled() ? `${dirname(Bun.main)}/store-worker-bun.ts` : new URL("../store-worker-bun.ts", import.meta.url).href),
  loopWorker: () => new Worker(isCompiled() ? `${dirname(Bun.main)}/loop-worker-bun.ts` : new URL("../loop-worker-bun.ts", import.meta.url).href),
  selfCommand: () => (isCompiled() ? [process.execPath] : [process.execPath, Bun.main]),
};

/** True inside a `bun build --compile` executable. */
export function isCompiled(): boolean {
  return Bun.main.startsWith("/$bunfs/") || Bun.main.includes("~BUN");
}


/** The cap Bun's fetch runs with, as Bun reads `BUN_CONFIG_MAX_HTTP_REQUESTS` at start (1-65535; otherwise its default). */
export function bunFetchLimit(value: string | undefined): number {
  const parsed = value === undefined || !/^\d+$/.test(value.trim()) ? Number.NaN : Number(value);
  return Number.isInteger(parsed) && parsed >= 1 && parsed <= 65_535 ? parsed : BUN_FETCH_DEFAULT_LIMIT;
}

/** Puts a request's connection back under the server's idle timeout; nothing to do once the client is gone. */
function restoreTimeout(server: { timeout(request: Request, seconds: number): void }, request: Request, seconds: number): void {
  try {
    server.timeout(request, seconds);
  } catch {
    // The connection closed already.
  }
}
