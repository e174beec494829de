import { Agent as HttpAgent, request as httpRequest, type IncomingMessage } from "node:http";
import { Agent as HttpsAgent, request as httpsRequest } from "node:https";
import { SocketBody } from "./socket-body.ts";

/**
 * What an upstream call is sent with: the global `fetch`'s init, and whether the caller expects
 * the answer streamed (a hint the client chosen by load reads; a runtime's `fetch` ignores it).
 */
export type UpstreamInit = RequestInit & { readonly streams?: boolean };

/** The shape of the global `fetch` the core uses for upstream calls. */
export type UpstreamFetch = (url: string, init: UpstreamInit) => Promise<Response>;

/**
 * A `fetch` over node:http(s) with kept-alive connections, for a runtime whose own fetch loses
 * the bytes of a body cut short (Bun's drops what it received but had not yet handed to the
 * reader when the connection ends without the body's end). Here every byte received is read
 * before the body errors. Bodies are passed through as sent (no decompression; none is asked
 * for). Rejects with the socket's error (its `code`, such as ECONNREFUSED) or the signal's reason.
 */
export function createNodeHttpFetch(): UpstreamFetch {
  const http = new HttpAgent({ keepAlive: true });
  const https = new HttpsAgent({ keepAlive: true });
  return (url, init) =>
    new Promise<Response>((resolve, reject) => {
      const signal = init.signal ?? undefined;
      if (signal?.aborted) return reject(signal.reason);
      const target = new URL(url);
      const secure = target.protocol === "https:";
      const headers: Record<string, string> = Object.fromEntries(new Headers(init.headers));
      const body = typeof init.body === "string" ? new TextEncoder().encode(init.body) : (init.body as Uint8Array | null | undefined);
      if (body) headers["content-length"] = String(body.byteLength);
      const request = (secure ? httpsRequest : httpRequest)(
        {
          hostname: target.hostname.replace(/^\[(.*)\]$/, "$1"),
          port: target.port,
          path: target.pathname + target.search,
          method: init.method ?? "GET",
          headers,
          agent: secure ? https : http,
        },
        (response) => {
          const responseHeaders = new Headers();
          const raw = response.rawHeaders;
          for (let i = 0; i + 1 < raw.length; i += 2) responseHeaders.append(raw[i]!, raw[i + 1]!);
          const status = response.statusCode ?? 502;
          const empty = status === 204 || status === 304 || init.method === "HEAD";
          if (empty) response.resume();
          resolve(new Response(empty ? null : bodyOf(response), { status, statusText: response.statusMessage ?? "", headers: responseHeaders }));
        },
      );
      const onAbort = () => request.destroy(signal?.reason instanceof Error ? signal.reason : new DOMException("The operation was aborted", "AbortError"));
      signal?.addEventListener("abort", onAbort, { once: true });
      request.on("close", () => signal?.removeEventListener("abort", onAbort));
      request.on("error", reject);
      request.end(body ?? undefined);
    });
}

/** A response body as a pull stream: one chunk per read (the response paused in between), then its end or error. */
function bodyOf(response: IncomingMessage): ReadableStream<Uint8Array> {
  const body = new SocketBody();
  response.on("data", (chunk: Uint8Array) => {
    response.pause();
    body.push(chunk);
  });
  response.on("end", () => body.end());
  response.on("error", (error) => body.fail(error));
  response.on("close", () => {
    if (!response.complete) body.fail(Object.assign(new Error("The connection closed before the response body ended"), { code: "ECONNRESET" }));
  });
  response.pause();
  return body.stream({ resume: () => response.resume(), cancel: () => response.destroy() });
}
