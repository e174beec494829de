import type { Runtime, Server, ServeOptions } from "./runtime.ts";
import { openDenoSqlite } from "./sqlite-deno.ts";

/** The Deno runtime: Deno.serve and node:sqlite. */
export const denoRuntime: Runtime = {
  name: "deno",
  version: Deno.version.deno,
  serve: (options: ServeOptions): Promise<Server> =>
    new Promise((resolve) => {
      const server = Deno.serve(
        {
          hostname: options.hostname,
          port: options.port,
          onListen: () => {},
          ...(options.onError === undefined ? {} : { onError: options.onError }),
        },
        (request, info) => options.fetch(request, { remoteAddress: remoteHost(info.remoteAddr) }),
      );
      const addr = server.addr as Deno.NetAddr;
      resolve({ hostname: addr.hostname, port: addr.port, stop: () => server.shutdown() });
    }),
  upstreamFetch: (url, init) => fetch(url, init),
  upstreamFetchLimit: undefined,
  cutSafeFetch: (url, init) => fetch(url, init),
  openSqlite: openDenoSqlite,
  storeWorker: () => new Worker(new URL("../store-worker-deno.ts", import.meta.url).href, { type: "module" }),
  // Deno.serve has no reusePort: Deno serves HTTP on one event loop.
  loopWorker: undefined,
  selfCommand: () => [Deno.execPath(), "run", "-A", "--unstable-no-legacy-abort", new URL(Deno.mainModule).pathname],
};

function remoteHost(addr: Deno.Addr): string {
  return "hostname" in addr ? addr.hostname : "";
}
