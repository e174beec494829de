import { connect, createServer, type Socket } from "node:net";

/** A loopback TCP proxy in front of a real PostgreSQL that counts the client's round trips. */
export interface RoundTripCounter {
  /** `url` with host and port pointing at the proxy. */
  readonly url: string;
  /** Round trips since the last reset: messages after which a client waits for the server (Sync, Query). */
  readonly roundTrips: number;
  /** New connections since the last reset. */
  readonly connections: number;
  reset(): void;
  close(): Promise<void>;
}

const SSL_REQUEST = 80_877_103;
const GSS_REQUEST = 80_877_104;

/**
 * Starts a proxy to the PostgreSQL at `url`. It reads the frontend protocol of every client
 * connection (untyped startup messages, then `type, int32 length, body` messages) and counts
 * each Sync ('S', the end of an extended-protocol query) and simple Query ('Q'): each is one
 * round trip, since the client then waits for ReadyForQuery. Server bytes pass through as they are.
 */
export async function startRoundTripCounter(url: string): Promise<RoundTripCounter> {
  const target = new URL(url);
  let roundTrips = 0;
  let connections = 0;
  const sockets = new Set<Socket>();
  const server = createServer((client) => {
    connections++;
    const upstream = connect(Number(target.port || "5432"), target.hostname);
    for (const socket of [client, upstream]) {
      sockets.add(socket);
      socket.on("close", () => sockets.delete(socket));
      socket.on("error", () => undefined);
    }
    client.on("close", () => upstream.destroy());
    upstream.on("close", () => client.destroy());
    upstream.pipe(client);
    let pending = Buffer.alloc(0);
    let startup = true;
    client.on("data", (chunk: Buffer) => {
      upstream.write(chunk);
      pending = Buffer.concat([pending, chunk]);
      for (;;) {
        if (startup) {
          if (pending.length < 8) return;
          const length = pending.readInt32BE(0);
          if (pending.length < length) return;
          const code = pending.readInt32BE(4);
          pending = pending.subarray(length);
          if (code !== SSL_REQUEST && code !== GSS_REQUEST) startup = false;
          continue;
        }
        if (pending.length < 5) return;
        const length = pending.readInt32BE(1);
        if (pending.length < 1 + length) return;
        const type = String.fromCharCode(pending[0]!);
        if (type === "S" || type === "Q") roundTrips++;
        pending = pending.subarray(1 + length);
      }
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const address = server.address();
  const proxied = new URL(url);
  proxied.hostname = "127.0.0.1";
  proxied.port = String(typeof address === "object" && address !== null ? address.port : 0);
  return {
    url: proxied.toString(),
    get roundTrips() {
      return roundTrips;
    },
    get connections() {
      return connections;
    },
    reset() {
      roundTrips = 0;
      connections = 0;
    },
    close: () =>
      new Promise<void>((resolve) => {
        for (const socket of sockets) socket.destroy();
        server.close(() => resolve());
      }),
  };
}
