import { connect as netConnect, isIP, type Socket } from "node:net";
import { connect as tlsConnect } from "node:tls";
import { Http1ResponseParser, type ResponseHead } from "./http1-response.ts";
import { KeepAlivePool } from "./keep-alive-pool.ts";
import type { UpstreamFetch } from "./node-http-fetch.ts";
import { SocketBody } from "./socket-body.ts";

/** Options of {@link createSocketFetch}. */
export interface SocketFetchOptions {
  /** An idle kept-alive connection is closed after this long (default 4 s, under common server timeouts). */
  readonly idleMs?: number;
  /** Idle connections kept per origin (default 64). */
  readonly maxIdlePerOrigin?: number;
  /** Certificates trusted for https (default: the runtime's root store). */
  readonly ca?: string | Buffer | ReadonlyArray<string | Buffer>;
  /** Connection establishment bound, TLS included (default 10 s); rejects with code ETIMEDOUT. */
  readonly connectTimeoutMs?: number;
}

interface Origin {
  readonly secure: boolean;
  readonly host: string;
  readonly port: number;
  /** The Host header. */
  readonly authority: string;
}

/**
 * A lean `fetch` for upstream calls: HTTP/1.1 over the runtime's TCP/TLS sockets (node:net,
 * node:tls), one request per connection at a time, a keep-alive pool per origin with idle eviction.
 * The body is a pull stream: the socket is read only while the reader asks for more, and every
 * byte received reaches the reader before the body errors (a cut stream). TLS sends SNI and
 * verifies the certificate. Bodies pass through as sent (no decompression; none is asked for).
 * Rejects with a socket error carrying its `code` (ECONNREFUSED, ECONNRESET, ETIMEDOUT) or the
 * signal's reason. A kept-alive connection that closes before any byte of the answer is the
 * classic idle-close race, or a server that took the request and dropped it: an idempotent request
 * (GET, HEAD, OPTIONS, PUT, DELETE) is sent again once on a new connection; any other (a provider
 * call is a POST) rejects with ECONNRESET, since the server may have acted on it (the relay's
 * retry policy decides, charging the attempt as possibly billed). The pool drops a connection as
 * soon as the server's close arrives, so the race is a close in flight while the request is sent.
 */
export function createSocketFetch(options: SocketFetchOptions = {}): UpstreamFetch {
  const idleMs = options.idleMs ?? 4000;
  const maxIdle = options.maxIdlePerOrigin ?? 64;
  const connectTimeoutMs = options.connectTimeoutMs ?? 10_000;
  const pool = new KeepAlivePool(idleMs, maxIdle);
  const origins = new Map<string, Origin>();

  const open = (origin: Origin): Promise<Socket> =>
    new Promise<Socket>((resolve, reject) => {
      const socket = origin.secure
        ? tlsConnect({
            host: origin.host,
            port: origin.port,
            ...(isIP(origin.host) === 0 ? { servername: origin.host } : {}),
            ALPNProtocols: ["http/1.1"],
            ...(options.ca ? { ca: options.ca as string[] } : {}),
          })
        : netConnect({ host: origin.host, port: origin.port });
      const timer = setTimeout(() => socket.destroy(Object.assign(new Error(`connect to ${origin.authority} timed out`), { code: "ETIMEDOUT" })), connectTimeoutMs);
      const done = (error?: Error) => {
        clearTimeout(timer);
        socket.removeListener("error", done);
        if (error) reject(error);
        else resolve(socket);
      };
      socket.once(origin.secure ? "secureConnect" : "connect", () => done());
      socket.once("error", done);
    });

  /** Where a URL goes, parsed once per URL (the providers call a handful of them). */
  const targets = new Map<string, { key: string; origin: Origin; path: string }>();
  const originOf = (url: string): { key: string; origin: Origin; path: string } => {
    let target = targets.get(url);
    if (target) return target;
    const parsed = new URL(url);
    const key = parsed.origin;
    let origin = origins.get(key);
    if (!origin) {
      const secure = parsed.protocol === "https:";
      if (!secure && parsed.protocol !== "http:") throw new TypeError(`unsupported protocol ${parsed.protocol}`);
      origin = {
        secure,
        host: parsed.hostname.replace(/^\[(.*)\]$/, "$1"),
        port: parsed.port === "" ? (secure ? 443 : 80) : Number(parsed.port),
        authority: parsed.host,
      };
      origins.set(key, origin);
    }
    target = { key, origin, path: parsed.pathname + parsed.search };
    if (targets.size < 1024) targets.set(url, target);
    return target;
  };

  return async (url, init) => {
    const signal = init.signal ?? undefined;
    signal?.throwIfAborted();
    const { key, origin, path } = originOf(url);
    const method = (init.method ?? "GET").toUpperCase();
    const body = bodyBytes(init.body);
    const head = requestHead(method, path, origin.authority, init.headers, body?.byteLength);
    for (let attempt = 0; ; attempt++) {
      const pooled = attempt === 0 ? pool.take(key) : undefined;
      const socket = pooled ?? (await abortable(open(origin), signal));
      try {
        return await exchange(socket, head, body, method === "HEAD", signal, (reusable) => (reusable ? pool.release(key, socket) : socket.destroy()));
      } catch (error) {
        if (!(pooled && IDEMPOTENT.has(method) && error instanceof StaleConnection)) throw error;
      }
    }
  };
}

/** Methods whose request may be sent twice with the effect of once (RFC 9110, 9.2.2). */
const IDEMPOTENT: ReadonlySet<string> = new Set(["GET", "HEAD", "OPTIONS", "PUT", "DELETE"]);

/** The connection closed or failed before any byte of the response (an idempotent request on a reused one is sent again once). */
class StaleConnection extends Error {
  constructor(message: string, readonly code = "ECONNRESET", cause?: unknown) {
    super(message, { cause });
  }
}

/** Writes the request, resolves with the response once its head arrived. */
function exchange(
  socket: Socket,
  head: string,
  payload: Uint8Array | undefined,
  bodiless: boolean,
  signal: AbortSignal | undefined,
  finished: (reusable: boolean) => void,
): Promise<Response> {
  return new Promise<Response>((resolve, reject) => {
    const body = new SocketBody();
    let received = false;
    let responded = false;
    let parsedHead: ResponseHead | undefined;
    let parser: Http1ResponseParser;
    const detach = () => {
      socket.removeListener("data", onData).removeListener("close", onClose).removeListener("error", onError);
      signal?.removeEventListener("abort", onAbort);
    };
    const fail = (error: unknown) => {
      if (body.ended || body.failure !== undefined) return;
      body.fail(error);
      detach();
      socket.destroy();
      if (!responded) reject(error);
    };
    const onData = (chunk: Buffer) => {
      received = true;
      parser.feed(chunk);
      if (parsedHead && !responded && body.failure === undefined) {
        responded = true;
        // A body that arrived whole with its head (the usual JSON answer) needs no stream.
        resolve(responseOf(parsedHead, bodiless, body.ended ? whole(body.pieces) : stream));
      }
      if (body.pieces.length > 0 && !body.ended) socket.pause();
    };
    const onClose = () => {
      if (parser.closed()) return;
      if (!received) return fail(new StaleConnection("The connection closed before the response"));
      fail(Object.assign(new Error("The connection closed before the response body ended"), { code: "ECONNRESET" }));
    };
    const onError = (error: Error & { code?: string }) => fail(received ? error : new StaleConnection(error.message, error.code, error));
    const onAbort = () => fail(signal!.reason);
    parser = new Http1ResponseParser(
      {
        head: (parsed) => void (parsedHead = parsed),
        body: (piece) => body.push(piece),
        end: () => {
          body.end();
          detach();
          finished(parsedHead!.keepAlive && !parser.leftover);
        },
        malformed: (message) => fail(Object.assign(new Error(`malformed upstream response: ${message}`), { code: "EPROTO" })),
      },
      bodiless,
    );
    const stream = body.stream({
      resume: () => socket.resume(),
      cancel: () => fail(new DOMException("The body was cancelled", "AbortError")),
    });
    socket.on("data", onData).on("close", onClose).on("error", onError);
    signal?.addEventListener("abort", onAbort, { once: true });
    socket.resume();
    if (payload && payload.byteLength > 0) {
      socket.cork();
      socket.write(head);
      socket.write(payload);
      socket.uncork();
    } else socket.write(head);
  });
}

function responseOf(head: ResponseHead, bodiless: boolean, body: ReadableStream<Uint8Array> | Uint8Array<ArrayBuffer>): Response {
  const empty = bodiless || head.status === 204 || head.status === 304;
  return new Response(empty ? null : body, { status: head.status, statusText: head.statusText, headers: head.headers });
}

/** The body pieces as one byte array. */
function whole(pieces: readonly Uint8Array[]): Uint8Array<ArrayBuffer> {
  if (pieces.length === 1 && pieces[0]!.byteOffset === 0 && pieces[0]!.buffer instanceof ArrayBuffer && pieces[0]!.byteLength === pieces[0]!.buffer.byteLength) return pieces[0] as Uint8Array<ArrayBuffer>;
  const bytes = new Uint8Array(pieces.reduce((sum, piece) => sum + piece.byteLength, 0));
  let at = 0;
  for (const piece of pieces) {
    bytes.set(piece, at);
    at += piece.byteLength;
  }
  return bytes;
}

function requestHead(method: string, path: string, authority: string, headers: RequestInit["headers"], length: number | undefined): string {
  let text = `${method} ${path} HTTP/1.1\r\nhost: ${authority}\r\n`;
  new Headers(headers).forEach((value, name) => {
    if (name !== "host" && name !== "content-length" && name !== "connection" && name !== "transfer-encoding") text += `${name}: ${value}\r\n`;
  });
  if (length !== undefined || method === "POST" || method === "PUT" || method === "PATCH") text += `content-length: ${length ?? 0}\r\n`;
  return text + "\r\n";
}

const encoder = new TextEncoder();

function bodyBytes(body: RequestInit["body"]): Uint8Array | undefined {
  if (body === undefined || body === null) return undefined;
  if (typeof body === "string") return encoder.encode(body);
  if (body instanceof Uint8Array) return body;
  if (body instanceof ArrayBuffer) return new Uint8Array(body);
  throw new TypeError("the upstream client sends string or byte bodies only");
}

function abortable<T>(work: Promise<T>, signal: AbortSignal | undefined): Promise<T> {
  if (!signal) return work;
  return new Promise<T>((resolve, reject) => {
    const onAbort = () => reject(signal.reason);
    signal.addEventListener("abort", onAbort, { once: true });
    work.then(
      (value) => {
        signal.removeEventListener("abort", onAbort);
        if (signal.aborted) (value as { destroy?: () => void }).destroy?.();
        resolve(value);
      },
      (error) => {
        signal.removeEventListener("abort", onAbort);
        reject(error);
      },
    );
  });
}
