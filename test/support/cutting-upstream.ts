import { createServer, type Socket } from "node:net";

/** A loopback upstream that answers every call with the same SSE chunks, then drops the connection (or holds it open). */
export interface CuttingUpstream {
  readonly url: string;
  /** The chunks of every answer, in order (each one SSE event). */
  readonly chunks: readonly string[];
  /** Requests received so far. */
  readonly requests: number;
  /** Connections open now. */
  readonly open: number;
  stop(): Promise<void>;
}

/**
 * Starts a raw-socket HTTP server: for each request (read whole, by its content-length) it
 * writes a `200 text/event-stream` chunked response carrying `chunks` (one write each), never
 * the terminating chunk. `after: "cut"` (default) destroys the socket once they are written: a
 * provider whose connection dropped mid-stream. `after: "hold"` keeps it open until the peer
 * closes it: a provider slow to end its body after the last event.
 */
export async function startCuttingUpstream(chunks: readonly string[], after: "cut" | "hold" = "cut"): Promise<CuttingUpstream> {
  let requests = 0;
  const sockets = new Set<Socket>();
  const server = createServer((socket) => {
    sockets.add(socket);
    socket.on("close", () => sockets.delete(socket));
    socket.on("error", () => {});
    let request = Buffer.alloc(0);
    socket.on("data", (data: Buffer) => {
      request = Buffer.concat([request, data]);
      const headEnd = request.indexOf("\r\n\r\n");
      if (headEnd < 0) return;
      const length = Number(/\r\ncontent-length: *(\d+)/i.exec(request.subarray(0, headEnd).toString())?.[1] ?? 0);
      if (request.length < headEnd + 4 + length) return;
      requests++;
      socket.write("HTTP/1.1 200 OK\r\ncontent-type: text/event-stream\r\ntransfer-encoding: chunked\r\n\r\n");
      chunks.forEach((chunk, i) => {
        const size = Buffer.byteLength(chunk).toString(16);
        socket.write(`${size}\r\n${chunk}\r\n`, i === chunks.length - 1 && after === "cut" ? () => socket.destroy() : undefined);
      });
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const address = server.address();
  const port = typeof address === "object" && address !== null ? address.port : 0;
  return {
    url: `http://127.0.0.1:${port}`,
    chunks,
    get requests() {
      return requests;
    },
    get open() {
      return sockets.size;
    },
    stop: () =>
      new Promise<void>((resolve) => {
        for (const socket of sockets) socket.destroy();
        server.close(() => resolve());
      }),
  };
}
