import { parseArgs } from "node:util";
import type { Runtime } from "../runtime/runtime.ts";

/**
 * Handler of a bare fetch passthrough: forwards method, path, headers and body
 * to `upstreamOrigin` and returns the upstream response as is. No parsing, no
 * auth, no journal: the floor `renio bench --baseline passthrough` compares with.
 */
export function passthroughFetch(upstreamOrigin: string): (request: Request) => Promise<Response> {
  const origin = upstreamOrigin.replace(/\/+$/, "");
  return (request) => {
    const url = request.url;
    const path = url.slice(url.indexOf("/", url.indexOf("//") + 2));
    return fetch(origin + path, { method: request.method, headers: request.headers, body: request.body, signal: request.signal });
  };
}

/** `renio passthrough --upstream URL [--host 127.0.0.1] [--port 0]` (hidden): runs until SIGINT/SIGTERM. */
export async function runPassthroughCommand(args: string[], runtime: Runtime): Promise<number> {
  const { values } = parseArgs({
    args,
    strict: true,
    options: { upstream: { type: "string" }, host: { type: "string" }, port: { type: "string" } },
  });
  if (values.upstream === undefined) {
    process.stderr.write("renio passthrough: --upstream URL is required\n");
    return 2;
  }
  let origin: string;
  try {
    origin = new URL(values.upstream).origin;
  } catch {
    process.stderr.write(`renio passthrough: --upstream must be a URL, got "${values.upstream}"\n`);
    return 2;
  }
  const port = Number(values.port ?? "0");
  if (!Number.isInteger(port) || port < 0 || port > 65_535) {
    process.stderr.write(`renio passthrough: --port must be an integer from 0 to 65535\n`);
    return 2;
  }
  const server = await runtime.serve({ hostname: values.host ?? "127.0.0.1", port, fetch: passthroughFetch(origin) });
  const host = server.hostname.includes(":") ? `[${server.hostname}]` : server.hostname;
  process.stdout.write(`renio passthrough listening on http://${host}:${server.port} → ${origin}\n`);
  await new Promise<void>((resolve) => {
    process.once("SIGINT", () => resolve());
    process.once("SIGTERM", () => resolve());
  });
  await server.stop();
  return 0;
}
