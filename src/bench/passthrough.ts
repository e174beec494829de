import { parseOptions, UsageError } from "../shared/cli-args.ts";
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

const PASSTHROUGH_OPTIONS = {
  upstream: { type: "string", required: true, valueName: "a URL" },
  host: { type: "string", default: "127.0.0.1" },
  port: { type: "integer", min: 0, max: 65_535, default: 0 },
} as const;

/** `renio passthrough --upstream URL [--host 127.0.0.1] [--port 0]` (hidden): runs until SIGINT/SIGTERM. */
export async function runPassthroughCommand(args: string[], runtime: Runtime): Promise<number> {
  const { values } = parseOptions(args, PASSTHROUGH_OPTIONS);
  const origin = originOf(values.upstream);
  const server = await runtime.serve({ hostname: values.host, port: values.port, fetch: passthroughFetch(origin) });
  const host = server.hostname.includes(":") ? `[${server.hostname}]` : server.hostname;
  process.stdout.write(`renio passthrough listening on http://${host}:${server.port} → ${origin}\n`);
  await new Promise<void>((resolve) => {
    process.once("SIGINT", () => resolve());
    process.once("SIGTERM", () => resolve());
  });
  await server.stop();
  return 0;
}

function originOf(url: string): string {
  try {
    return new URL(url).origin;
  } catch {
    throw new UsageError(`--upstream must be a URL, got "${url}"`);
  }
}
