import assert from "node:assert/strict";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { createServer as createHttpServer, type Server as HttpServer } from "node:http";
import { createServer as createNetServer, type Server as NetServer, type Socket } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createServer as createTlsServer } from "node:tls";
import { after, before, test } from "node:test";
import { selfSignedCert } from "../../test/support/self-signed-cert.ts";
import { createSocketFetch } from "./socket-fetch.ts";

/** A node:http server that echoes the request and counts the connections it accepted. */
let http: HttpServer;
let httpUrl: string;
let httpConnections = 0;

before(async () => {
  http = createHttpServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on("data", (chunk: Buffer) => chunks.push(chunk));
    request.on("end", () => {
      if (request.url === "/hang") return;
      const headers: Record<string, string> = { "content-type": "application/json", "x-echo-method": request.method ?? "" };
      if (request.url === "/close") headers.connection = "close";
      response.writeHead(201, headers);
      response.end(JSON.stringify({ body: Buffer.concat(chunks).toString(), contentType: request.headers["content-type"], path: request.url }));
    });
  });
  http.on("connection", () => httpConnections++);
  httpUrl = `http://127.0.0.1:${await listen(http)}`;
});

after(async () => {
  http.closeAllConnections();
  await new Promise<void>((resolve) => http.close(() => resolve()));
});

async function listen(server: HttpServer | NetServer): Promise<number> {
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const address = server.address();
  return typeof address === "object" && address !== null ? address.port : 0;
}

/** A raw TCP server that answers every request with `respond` (after reading its head; `request` counts from 1 over all connections). */
async function rawServer(respond: (socket: Socket, request: number) => void): Promise<{ url: string; connections: () => number; requests: () => number; closed: () => Promise<void>; close(): Promise<void> }> {
  let connections = 0;
  let requests = 0;
  const sockets = new Set<Socket>();
  let closedOne: () => void = () => undefined;
  const server = createNetServer((socket) => {
    connections++;
    sockets.add(socket);
    socket.on("close", () => {
      sockets.delete(socket);
      closedOne();
    });
    socket.on("error", () => {});
    let head = "";
    const onData = (chunk: Buffer) => {
      head += chunk.toString("latin1");
      if (!head.includes("\r\n\r\n")) return;
      head = "";
      respond(socket, ++requests);
    };
    socket.on("data", onData);
  });
  const port = await listen(server);
  return {
    url: `http://127.0.0.1:${port}`,
    connections: () => connections,
    requests: () => requests,
    /** Resolves when the next connection is closed on both sides (the client has seen the server's close). */
    closed: () => new Promise<void>((resolve) => void (closedOne = resolve)),
    close: async () => {
      for (const socket of sockets) socket.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

/** Reads a body until it ends or fails; returns the bytes received and the failure, if any. */
async function drain(body: ReadableStream<Uint8Array>): Promise<{ text: string; error?: unknown }> {
  const reader = body.getReader();
  const decoder = new TextDecoder();
  let text = "";
  for (;;) {
    try {
      const read = await reader.read();
      if (read.done) return { text: text + decoder.decode() };
      text += decoder.decode(read.value, { stream: true });
    } catch (error) {
      return { text: text + decoder.decode(), error };
    }
  }
}

test("sends method, headers and body; returns status, headers and body", async () => {
  const fetchOver = createSocketFetch();
  const response = await fetchOver(`${httpUrl}/echo?x=1`, { method: "POST", headers: { "content-type": "application/json" }, body: new TextEncoder().encode('{"a":1}') });
  assert.equal(response.status, 201);
  assert.equal(response.headers.get("x-echo-method"), "POST");
  assert.deepEqual(await response.json(), { body: '{"a":1}', contentType: "application/json", path: "/echo?x=1" });
});

test("sequential calls reuse one kept-alive connection; `connection: close` opens a new one", async () => {
  const fetchOver = createSocketFetch();
  const before = httpConnections;
  for (let i = 0; i < 5; i++) assert.equal((await (await fetchOver(`${httpUrl}/n${i}`, { method: "POST", body: String(i) }).then((r) => r.json())) as { body: string }).body, String(i));
  assert.equal(httpConnections - before, 1, "five calls, one connection");
  await (await fetchOver(`${httpUrl}/close`, { method: "POST", body: "{}" })).text();
  await (await fetchOver(`${httpUrl}/after`, { method: "POST", body: "{}" })).text();
  assert.equal(httpConnections - before, 2, "the server's close is honoured");
});

test("concurrent calls use one connection each, then share the pool", async () => {
  const fetchOver = createSocketFetch();
  const before = httpConnections;
  const texts = await Promise.all(Array.from({ length: 4 }, (_, i) => fetchOver(`${httpUrl}/c${i}`, { method: "POST", body: `c${i}` }).then((r) => r.json())));
  assert.deepEqual(texts.map((t) => (t as { body: string }).body), ["c0", "c1", "c2", "c3"]);
  assert.equal(httpConnections - before, 4);
  await Promise.all(Array.from({ length: 4 }, (_, i) => fetchOver(`${httpUrl}/d${i}`, { method: "POST", body: "{}" }).then((r) => r.text())));
  assert.equal(httpConnections - before, 4, "the second round reused the four idle connections");
});

test("an idle connection is evicted after idleMs (the server sees it close)", async () => {
  const closed = new Promise<void>((resolve) => http.once("connection", (socket: Socket) => socket.once("close", () => resolve())));
  const fetchOver = createSocketFetch({ idleMs: 20 });
  await (await fetchOver(`${httpUrl}/idle`, { method: "POST", body: "{}" })).text();
  await closed;
});

test("chunked bodies split at every byte, with extensions and trailers, parse to the exact body; the connection is reused", async () => {
  const wire = "HTTP/1.1 200 OK\r\ntransfer-encoding: chunked\r\ncontent-type: text/plain\r\n\r\n5;ext=1\r\nhello\r\n1\r\n,\r\n6\r\n world\r\n0\r\nx-trailer: yes\r\n\r\n";
  const server = await rawServer((socket) => {
    let at = 0;
    const next = () => {
      if (at < wire.length) socket.write(wire[at++]!, next);
    };
    next();
  });
  const fetchOver = createSocketFetch();
  for (let i = 0; i < 2; i++) {
    const response = await fetchOver(server.url, { method: "POST", body: "{}" });
    assert.equal(response.headers.get("content-type"), "text/plain");
    assert.equal(await response.text(), "hello, world");
  }
  assert.equal(server.connections(), 1);
  await server.close();
});

test("a body cut mid-stream delivers every byte received, then errors with ECONNRESET", async () => {
  const sent = "data: one\n\ndata: two\n\n";
  const server = await rawServer((socket) => socket.write(`HTTP/1.1 200 OK\r\ncontent-length: 1000\r\n\r\n${sent}`, () => socket.destroy()));
  const response = await createSocketFetch()(server.url, { method: "POST", body: "{}" });
  const { text, error } = await drain(response.body!);
  assert.equal(text, sent);
  assert.equal((error as { code?: string }).code, "ECONNRESET");
  const chunked = await rawServer((socket) => socket.write(`HTTP/1.1 200 OK\r\ntransfer-encoding: chunked\r\n\r\n${sent.length.toString(16)}\r\n${sent}\r\n`, () => socket.end()));
  const cut = await drain((await createSocketFetch()(chunked.url, { method: "POST", body: "{}" })).body!);
  assert.equal(cut.text, sent);
  assert.equal((cut.error as { code?: string }).code, "ECONNRESET");
  await server.close();
  await chunked.close();
});

test("a body framed by the connection's close ends cleanly at the close", async () => {
  const server = await rawServer((socket) => socket.end("HTTP/1.1 200 OK\r\n\r\nuntil the end"));
  const response = await createSocketFetch()(server.url, { method: "POST", body: "{}" });
  assert.deepEqual(await drain(response.body!), { text: "until the end" });
  await server.close();
});

test("malformed responses reject with EPROTO and a message naming the problem", async () => {
  for (const [wire, problem] of [
    ["HTTP/9 200 OK\r\n\r\n", "invalid status line"],
    ["HTTP/1.1 200 OK\r\ncontent-length: ten\r\n\r\n", "invalid content-length"],
    ["HTTP/1.1 200 OK\r\nno colon here\r\n\r\n", "invalid header line"],
  ] as const) {
    const server = await rawServer((socket) => socket.write(wire));
    await assert.rejects(createSocketFetch()(server.url, { method: "POST", body: "{}" }), (error: Error & { code?: string }) => error.code === "EPROTO" && error.message.includes(problem));
    await server.close();
  }
  const badChunk = await rawServer((socket) => socket.write("HTTP/1.1 200 OK\r\ntransfer-encoding: chunked\r\n\r\nzz\r\n"));
  // Arriving with the head, the bad chunk rejects the call; arriving later, it errors the body.
  const error = await createSocketFetch()(badChunk.url, { method: "POST", body: "{}" }).then(
    async (response) => (await drain(response.body!)).error,
    (rejected: unknown) => rejected,
  );
  assert.match(String((error as Error).message), /invalid chunk size "zz"/);
  await badChunk.close();
});

test("a 100 Continue before the answer is skipped; 204 has no body and keeps the connection", async () => {
  const server = await rawServer((socket) => socket.write("HTTP/1.1 100 Continue\r\n\r\nHTTP/1.1 204 No Content\r\nx-a: 1\r\n\r\n"));
  const fetchOver = createSocketFetch();
  for (let i = 0; i < 2; i++) {
    const response = await fetchOver(server.url, { method: "POST", body: "{}" });
    assert.equal(response.status, 204);
    assert.equal(response.headers.get("x-a"), "1");
    assert.equal(response.body, null);
  }
  assert.equal(server.connections(), 1);
  await server.close();
});

/** A whole answer whose connection stays open. */
const OK = "HTTP/1.1 200 OK\r\ncontent-length: 2\r\n\r\nok";

test("a kept-alive connection the server closed while idle is dropped from the pool, the next call opens a new one", async () => {
  const server = await rawServer((socket) => socket.write(OK, () => socket.end()));
  const fetchOver = createSocketFetch();
  const closed = server.closed();
  assert.equal(await (await fetchOver(server.url, { method: "POST", body: "{}" })).text(), "ok");
  await closed;
  assert.equal(await (await fetchOver(server.url, { method: "POST", body: "{}" })).text(), "ok");
  assert.deepEqual([server.connections(), server.requests()], [2, 2]);
  await server.close();
});

test("a POST on a reused connection that closes before any byte of the answer rejects with ECONNRESET and is not sent again (the server may have acted on it)", async () => {
  const server = await rawServer((socket, request) => (request === 2 ? socket.destroy() : socket.write(OK)));
  const fetchOver = createSocketFetch();
  assert.equal(await (await fetchOver(server.url, { method: "POST", body: "{}" })).text(), "ok");
  await assert.rejects(fetchOver(server.url, { method: "POST", body: "{}" }), (error: { code?: string }) => error.code === "ECONNRESET");
  assert.deepEqual([server.connections(), server.requests()], [1, 2]);
  await server.close();
});

test("an idempotent request (GET) on a reused connection that closes before any byte of the answer is sent again once, on a new connection", async () => {
  const server = await rawServer((socket, request) => (request === 2 ? socket.destroy() : socket.write(OK)));
  const fetchOver = createSocketFetch();
  assert.equal(await (await fetchOver(server.url, { method: "GET" })).text(), "ok");
  assert.equal(await (await fetchOver(server.url, { method: "GET" })).text(), "ok");
  assert.deepEqual([server.connections(), server.requests()], [2, 3]);
  await server.close();
});

test("a refused connection rejects with ECONNREFUSED", async () => {
  const closed = createNetServer();
  const port = await listen(closed);
  await new Promise<void>((resolve) => closed.close(() => resolve()));
  await assert.rejects(createSocketFetch()(`http://127.0.0.1:${port}/`, { method: "POST", body: "{}" }), (error: { code?: string }) => error.code === "ECONNREFUSED");
});

test("a connection that never completes its TLS handshake times out with ETIMEDOUT", async () => {
  const silent = await rawServer(() => {});
  const url = silent.url.replace("http:", "https:");
  await assert.rejects(createSocketFetch({ connectTimeoutMs: 50 })(url, { method: "POST", body: "{}" }), (error: { code?: string }) => error.code === "ETIMEDOUT");
  await silent.close();
});

test("an abort rejects a waiting call with the signal's reason and errors a body being read", async () => {
  const fetchOver = createSocketFetch();
  const controller = new AbortController();
  const pending = fetchOver(`${httpUrl}/hang`, { method: "POST", body: "{}", signal: controller.signal });
  const reason = new Error("stopped by the test");
  controller.abort(reason);
  await assert.rejects(pending, (error) => error === reason);
  await assert.rejects(fetchOver(`${httpUrl}/x`, { method: "POST", body: "{}", signal: controller.signal }), (error) => error === reason, "already aborted");
  const streaming = await rawServer((socket) => socket.write("HTTP/1.1 200 OK\r\ntransfer-encoding: chunked\r\n\r\n3\r\nabc\r\n"));
  const midBody = new AbortController();
  const response = await fetchOver(streaming.url, { method: "POST", body: "{}", signal: midBody.signal });
  const reader = response.body!.getReader();
  assert.equal(new TextDecoder().decode((await reader.read()).value), "abc");
  midBody.abort(reason);
  await assert.rejects(reader.read(), (error) => error === reason);
  await streaming.close();
});

test("a large body arrives intact; a reader that stops pulling stops the socket (the server cannot finish)", async () => {
  const total = 48 * 1024 * 1024;
  const piece = Buffer.alloc(64 * 1024, 97);
  let finished = false;
  const serverClosed = Promise.withResolvers<boolean>();
  const server = await rawServer((socket) => {
    socket.write(`HTTP/1.1 200 OK\r\ncontent-length: ${total}\r\n\r\n`);
    let written = 0;
    socket.once("close", () => serverClosed.resolve(finished));
    const pump = () => {
      while (written < total) {
        written += piece.byteLength;
        if (!socket.write(piece, written >= total ? () => (finished = true) : undefined)) return void socket.once("drain", pump);
      }
    };
    pump();
  });
  const fetchOver = createSocketFetch();
  const whole = await (await fetchOver(server.url, { method: "POST", body: "{}" })).arrayBuffer();
  assert.equal(whole.byteLength, total);
  assert.ok(new Uint8Array(whole).every((byte) => byte === 97));
  finished = false;
  const response = await createSocketFetch()(server.url, { method: "POST", body: "{}" });
  const reader = response.body!.getReader();
  assert.ok(((await reader.read()).value?.byteLength ?? 0) > 0);
  await reader.cancel();
  assert.equal(await serverClosed.promise, false, "the client stopped reading: the server never wrote the whole body");
  await server.close();
});

test("https: verifies the certificate against the given CA, and refuses it without", async () => {
  const dir = mkdtempSync(join(tmpdir(), "renio-tls-"));
  try {
    const files = selfSignedCert(dir);
    const cert = readFileSync(files.certFile);
    let connections = 0;
    const sockets = new Set<{ destroy(): void }>();
    const server = createTlsServer({ key: readFileSync(files.keyFile), cert }, (socket) => {
      connections++;
      sockets.add(socket);
      socket.on("error", () => {});
      socket.on("data", () => socket.write("HTTP/1.1 200 OK\r\ncontent-length: 6\r\n\r\nsecure"));
    });
    const url = `https://127.0.0.1:${await listen(server as unknown as NetServer)}/`;
    const trusting = createSocketFetch({ ca: cert });
    for (let i = 0; i < 2; i++) assert.equal(await (await trusting(url, { method: "POST", body: "{}" })).text(), "secure");
    assert.equal(connections, 1, "TLS connections are kept alive too");
    await assert.rejects(createSocketFetch()(url, { method: "POST", body: "{}" }), (error: { code?: string }) => typeof error.code === "string" && /CERT|SELF_SIGNED|UNABLE/i.test(error.code));
    for (const socket of sockets) socket.destroy();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
