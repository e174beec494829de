import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";

/** A loopback HTTP server for the bench's own tests. */
export interface TestServer {
  readonly url: string;
  /** Requests seen so far: method, path, headers and body. */
  readonly seen: Array<{ method: string; path: string; headers: IncomingMessage["headers"]; body: string }>;
  close(): Promise<void>;
}

/** Starts a node:http server on 127.0.0.1 (a free port); the handler gets the body read. */
export async function startTestServer(handler: (request: IncomingMessage, body: string, response: ServerResponse) => void): Promise<TestServer> {
  const seen: TestServer["seen"] = [];
  const server = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on("data", (chunk: Buffer) => chunks.push(chunk));
    request.on("end", () => {
      const body = Buffer.concat(chunks).toString("utf8");
      seen.push({ method: request.method ?? "", path: request.url ?? "", headers: request.headers, body });
      handler(request, body, response);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    seen,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/** A handler answering like a chat completion: JSON, or SSE when the body asks for a stream. */
export function chatHandler(request: IncomingMessage, body: string, response: ServerResponse): void {
  void request;
  if (body.includes('"stream":true')) {
    response.writeHead(200, { "content-type": "text/event-stream" });
    response.write('data: {"choices":[{"delta":{"content":"hi"}}]}\n\n');
    response.end("data: [DONE]\n\n");
    return;
  }
  response.writeHead(200, { "content-type": "application/json" });
  response.end('{"choices":[{"message":{"content":"hi"}}]}');
}
