import assert from "node:assert/strict";
import { createServer, type Server } from "node:http";
import { after, before, test } from "node:test";
import { createNodeHttpFetch } from "./node-http-fetch.ts";

const fetchOver = createNodeHttpFetch();
let server: Server;
let url: string;

before(async () => {
  server = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on("data", (chunk: Buffer) => chunks.push(chunk));
    request.on("end", () => {
      if (request.url === "/hang") return; // never answers
      response.writeHead(201, { "content-type": "application/json", "x-echo-method": request.method ?? "" });
      response.end(JSON.stringify({ body: Buffer.concat(chunks).toString(), contentType: request.headers["content-type"] }));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const address = server.address();
  url = `http://127.0.0.1:${typeof address === "object" && address !== null ? address.port : 0}`;
});

after(async () => {
  server.closeAllConnections();
  await new Promise<void>((resolve) => server.close(() => resolve()));
});

test("sends method, headers and body; returns status, headers and body", async () => {
  const response = await fetchOver(`${url}/echo`, { method: "POST", headers: { "content-type": "application/json" }, body: new TextEncoder().encode('{"a":1}') });
  assert.equal(response.status, 201);
  assert.equal(response.headers.get("x-echo-method"), "POST");
  assert.deepEqual(await response.json(), { body: '{"a":1}', contentType: "application/json" });
});

test("a refused connection rejects with its code (ECONNREFUSED), as the failure mapping expects", async () => {
  const closed = createServer();
  await new Promise<void>((resolve) => closed.listen(0, "127.0.0.1", resolve));
  const address = closed.address();
  const port = typeof address === "object" && address !== null ? address.port : 0;
  await new Promise<void>((resolve) => closed.close(() => resolve()));
  await assert.rejects(fetchOver(`http://127.0.0.1:${port}/`, { method: "POST", body: "{}" }), (error) => (error as { code?: string }).code === "ECONNREFUSED");
});

test("an abort rejects a call still waiting for its answer with the signal's reason", async () => {
  const controller = new AbortController();
  const pending = fetchOver(`${url}/hang`, { method: "POST", body: "{}", signal: controller.signal });
  const reason = new Error("stopped by the test");
  controller.abort(reason);
  await assert.rejects(pending, (error) => error === reason);
  await assert.rejects(fetchOver(`${url}/hang`, { method: "POST", body: "{}", signal: controller.signal }), (error) => error === reason, "already aborted");
});
