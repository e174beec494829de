import { createServer, connect, type Server, type Socket } from "node:net";

/**
 * A TCP proxy between Renio and PostgreSQL (real sockets on loopback) that injects faults at a
 * commit. It reads the PostgreSQL wire protocol (v3) from the client: the untyped startup
 * packets (SSLRequest, GSSENCRequest, StartupMessage), then typed messages (a type byte and a
 * 32-bit length that counts itself). A commit is the end of a write: a simple query (`Q`)
 * COMMIT of a transaction that wrote, or a Sync (`S`) closing an extended-protocol Execute
 * (`E`) of a writing statement (its text from Parse, `P`, by the name Bind, `B`, gives) outside
 * an explicit transaction (autocommit: committed at the Sync). Reads never count. The server's
 * replies are read the same way (ReadyForQuery, `Z`, ends the answer to a commit).
 *
 * Faults are armed one at a time and fire on the next commit through the proxy, on whichever
 * connection carries it:
 * - `dropNextCommit({ reachesServer: true })`: the commit is forwarded, the server's answer is
 *   read but not passed on, and both sockets are cut once it is complete: committed, reply lost.
 * - `dropNextCommit({ reachesServer: false })`: the connection is cut instead of forwarding the
 *   commit: the server rolls the transaction back, and the client cannot tell which happened.
 * - `stallNextCommit()`: the commit is held until `release()`, then forwarded; the rest of the
 *   connection's traffic waits behind it.
 */
export interface PgFaultProxy {
  /** The PostgreSQL URL through the proxy (the database of the target URL). */
  readonly url: string;
  /**
   * Arms a drop; resolves once it fired (the commit it hit was seen). With `of`, only a commit
   * whose writes' text matches it (e.g. /with want/: the one-statement admission) is hit.
   */
  dropNextCommit(options: { reachesServer: boolean; of?: RegExp }): Promise<void>;
  /** Arms a stall (of a commit whose writes match `of`, when given); `stalled` resolves once a commit is held, `release` forwards it. */
  stallNextCommit(of?: RegExp): { readonly stalled: Promise<void>; release(): void };
  /** Commits seen since the proxy started (every connection). */
  readonly commits: number;
  close(): Promise<void>;
}

type Fault = ({ kind: "drop"; reachesServer: boolean; fired: () => void } | { kind: "stall"; stalled: () => void; released: Promise<void> }) & { of?: RegExp };

const SSL_REQUEST = 80877103;
const GSSENC_REQUEST = 80877104;
const CANCEL_REQUEST = 80877102;

/** Starts a proxy on a free loopback port forwarding to the server of `targetUrl`. */
export async function startPgFaultProxy(targetUrl: string): Promise<PgFaultProxy> {
  const target = new URL(targetUrl);
  let armed: Fault | undefined;
  let seen = 0;
  const sockets = new Set<Socket>();

  const server: Server = createServer((client) => {
    const upstream = connect({ host: target.hostname, port: Number(target.port || 5432) });
    for (const socket of [client, upstream]) {
      // Messages are written one by one: without this, Nagle's algorithm holds each small write
      // back until the peer's delayed ACK (some runtimes' sockets do not default to no delay).
      socket.setNoDelay(true);
      sockets.add(socket);
      socket.on("close", () => sockets.delete(socket));
      socket.on("error", () => undefined);
    }
    const cut = (): void => {
      client.destroy();
      upstream.destroy();
    };
    client.on("close", cut);
    upstream.on("close", cut);

    /** The server's answers pass unless a commit's reply is being swallowed. */
    let swallowing: (() => void) | undefined;
    const fromServer = messageReader(false, (message) => {
      if (swallowing === undefined) {
        client.write(message);
        return;
      }
      if (message[0] === 0x5a) swallowing(); // ReadyForQuery: the commit's answer is complete
    });
    upstream.on("data", fromServer);

    /** Client messages are forwarded in order; `queue` holds them while a stalled commit waits. */
    let held: Promise<void> | undefined;
    const queue: Buffer[] = [];
    const commits = commitTracker();
    const forward = (message: Buffer): void => {
      if (held !== undefined) {
        queue.push(message);
        return;
      }
      const writes = commits.commitOf(message);
      if (writes === undefined) {
        upstream.write(message);
        return;
      }
      seen++;
      const fault = armed?.of === undefined || armed.of.test(writes) ? armed : undefined;
      if (fault !== undefined) armed = undefined;
      if (fault === undefined) {
        upstream.write(message);
      } else if (fault.kind === "drop" && !fault.reachesServer) {
        fault.fired();
        cut();
      } else if (fault.kind === "drop") {
        swallowing = () => {
          fault.fired();
          cut();
        };
        upstream.write(message);
      } else {
        fault.stalled();
        held = fault.released.then(() => {
          held = undefined;
          upstream.write(message);
          for (const next of queue.splice(0)) forward(next);
        });
      }
    };
    client.on("data", messageReader(true, forward));
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const port = (server.address() as { port: number }).port;
  const url = new URL(targetUrl);
  url.hostname = "127.0.0.1";
  url.port = String(port);

  return {
    url: url.toString(),
    get commits() {
      return seen;
    },
    dropNextCommit({ reachesServer, of }) {
      return new Promise<void>((fired) => (armed = { kind: "drop", reachesServer, fired, of }));
    },
    stallNextCommit(of) {
      let release!: () => void;
      let stalled!: () => void;
      const released = new Promise<void>((resolve) => (release = resolve));
      const seen = new Promise<void>((resolve) => (stalled = resolve));
      armed = { kind: "stall", stalled, released, of };
      return { stalled: seen, release };
    },
    async close() {
      armed = undefined;
      for (const socket of sockets) socket.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

const WRITES = /\b(insert|update|delete)\b/i;

/**
 * Follows one connection's client messages: `commitOf` answers, for a message that commits a
 * write, the text of the writes it commits (else undefined). See the file's comment.
 */
function commitTracker(): { commitOf(message: Buffer): string | undefined } {
  const statements = new Map<string, string>();
  let bound = "";
  let inTransaction = false;
  /** The writes of the open transaction, or of the autocommit statements executed since the last Sync. */
  let writes = "";
  return {
    commitOf(message) {
      switch (message[0]) {
        case 0x51: {
          const text = message.toString("utf8", 5, message.length - 1);
          if (/^\s*(commit|end)\b/i.test(text)) {
            const committed = inTransaction && writes !== "" ? writes : undefined;
            inTransaction = false;
            writes = "";
            return committed;
          }
          if (/^\s*(rollback|abort)\b/i.test(text)) {
            inTransaction = false;
            writes = "";
          } else if (/^\s*(begin|start\s+transaction)\b/i.test(text)) inTransaction = true;
          if (inTransaction && WRITES.test(text)) writes += `${text}\n`;
          return undefined;
        }
        case 0x50: {
          const [name = "", text = ""] = cStrings(message, 2);
          statements.set(name, text);
          return undefined;
        }
        case 0x42: {
          const [, name = ""] = cStrings(message, 2);
          bound = statements.get(name) ?? "";
          return undefined;
        }
        case 0x45:
          if (WRITES.test(bound)) writes += `${bound}\n`;
          return undefined;
        case 0x53: {
          if (inTransaction || writes === "") return undefined;
          const committed = writes;
          writes = "";
          return committed;
        }
        default:
          return undefined;
      }
    },
  };
}

/** The first `count` NUL-terminated strings of a message's body. */
function cStrings(message: Buffer, count: number): string[] {
  const out: string[] = [];
  let at = 5;
  for (let i = 0; i < count; i++) {
    const end = message.indexOf(0, at);
    if (end < 0) break;
    out.push(message.toString("utf8", at, end));
    at = end + 1;
  }
  return out;
}

/**
 * Cuts a byte stream into whole protocol messages. `fromClient`: the stream starts with untyped
 * startup packets (length first) until the StartupMessage (an SSLRequest or GSSENCRequest is
 * followed by another untyped packet; the proxy speaks no TLS, so the server declines it).
 */
function messageReader(fromClient: boolean, onMessage: (message: Buffer) => void): (chunk: Buffer) => void {
  let buffered: Buffer = Buffer.alloc(0);
  let untyped = fromClient;
  return (chunk) => {
    buffered = buffered.length === 0 ? chunk : Buffer.concat([buffered, chunk]);
    for (;;) {
      if (untyped) {
        if (buffered.length < 8) return;
        const length = buffered.readInt32BE(0);
        if (buffered.length < length) return;
        const code = buffered.readInt32BE(4);
        untyped = code === SSL_REQUEST || code === GSSENC_REQUEST;
        if (code === CANCEL_REQUEST) untyped = true;
        onMessage(buffered.subarray(0, length));
        buffered = buffered.subarray(length);
        continue;
      }
      if (buffered.length < 5) return;
      const length = buffered.readInt32BE(1) + 1;
      if (buffered.length < length) return;
      onMessage(buffered.subarray(0, length));
      buffered = buffered.subarray(length);
    }
  };
}
