import { connect, type Socket } from "node:net";
import { Http1ResponseParser, type ResponseHead } from "../upstream/http1-response.ts";
import { createDataScanner } from "./load-client.ts";

/**
 * The capacity load client: `concurrency` workers, each holding one kept-alive connection and
 * one stream open at a time, sending the next call as soon as its stream ended. It runs on
 * plain sockets (node:net) with the relay's own response parser, so it holds thousands of
 * streams without the runtime's fetch (whose in-flight cap, 256 on Bun, would queue the rest
 * inside the load client and hide what is measured). Every target (direct, Renio, the
 * passthrough, Go, nginx) goes through this same code.
 */

/** Where to send the capacity call, prepared once: the request's bytes, head and body. */
export interface StreamTarget {
  readonly name: string;
  readonly host: string;
  readonly port: number;
  readonly request: Buffer;
}

/** One round against a target. */
export interface StreamRoundSpec {
  readonly concurrency: number;
  /** Calls per worker before the measured ones (connections opened, the target warmed up). */
  readonly warmupPerWorker: number;
  /** Measured calls per worker. */
  readonly callsPerWorker: number;
  /**
   * Worker i starts i / concurrency of this after the first (ms): set to about one stream's
   * length, calls arrive at an even pace (as a busy service sees them) instead of all at once
   * and in lockstep ever after.
   */
  readonly staggerMs: number;
  /** Stops every worker (the overall deadline). */
  readonly signal: AbortSignal;
}

/** What one round measured. */
export interface StreamRoundResult {
  /** Per measured call: request written to the first body piece holding `data:` (ms). */
  readonly firstToken: Float64Array;
  /** Per arrival of stream bytes after the first `data:` one: the time since the arrival before it (ms). */
  readonly gaps: Float64Array;
  /** Measured calls that failed (an error status, a dropped connection, no `data:`). */
  readonly errors: number;
  readonly firstError: string | undefined;
  /** Measured calls that completed. */
  readonly calls: number;
  /** From the first measured call's start to the last one's end (s). */
  readonly seconds: number;
}

/** Builds a target: the request bytes for `url` with `headers` and `body`, sent over and over on each worker's connection. */
export function createStreamTarget(name: string, url: string, body: string, headers: ReadonlyArray<readonly [string, string]>): StreamTarget {
  const parsed = new URL(url);
  if (parsed.protocol !== "http:") throw new Error(`the capacity load client speaks plain http, not ${parsed.protocol} (${url})`);
  const bytes = Buffer.from(body);
  let head = `POST ${parsed.pathname}${parsed.search} HTTP/1.1\r\nhost: ${parsed.host}\r\ncontent-type: application/json\r\ncontent-length: ${bytes.byteLength}\r\n`;
  for (const [key, value] of headers) head += `${key}: ${value}\r\n`;
  return { name, host: parsed.hostname.replace(/^\[(.*)\]$/, "$1"), port: Number(parsed.port || 80), request: Buffer.concat([Buffer.from(`${head}\r\n`), bytes]) };
}

const decoder = new TextDecoder();

/** A growable array of doubles (gaps: tens of thousands of calls times their chunks). */
class Samples {
  private data = new Float64Array(1024);
  length = 0;
  push(value: number): void {
    if (this.length === this.data.length) {
      const grown = new Float64Array(this.data.length * 2);
      grown.set(this.data);
      this.data = grown;
    }
    this.data[this.length++] = value;
  }
  values(): Float64Array {
    return this.data.slice(0, this.length);
  }
}

/** Runs one round: every worker does its warm-up calls, then its measured calls. */
export async function runStreamRound(target: StreamTarget, spec: StreamRoundSpec): Promise<StreamRoundResult> {
  const firstToken = new Samples();
  const gaps = new Samples();
  let errors = 0;
  let calls = 0;
  let firstError: string | undefined;
  let measuredFrom = Number.POSITIVE_INFINITY;
  let measuredTo = 0;
  const worker = async (_: unknown, index: number): Promise<void> => {
    await delay((index / spec.concurrency) * spec.staggerMs, spec.signal);
    const connection = new WorkerConnection(target, spec.signal);
    try {
      for (let i = 0; i < spec.warmupPerWorker + spec.callsPerWorker && !spec.signal.aborted; i++) {
        const measured = i >= spec.warmupPerWorker;
        const started = performance.now();
        if (measured) measuredFrom = Math.min(measuredFrom, started);
        try {
          const call = await connection.call();
          if (!measured) continue;
          firstToken.push(call.firstToken);
          for (const gap of call.gaps) gaps.push(gap);
          calls++;
        } catch (error) {
          if (!measured) continue;
          errors++;
          firstError ??= spec.signal.aborted ? "deadline reached" : error instanceof Error ? error.message : String(error);
        } finally {
          if (measured) measuredTo = Math.max(measuredTo, performance.now());
        }
      }
    } finally {
      connection.close();
    }
  };
  await Promise.all(Array.from({ length: spec.concurrency }, worker));
  return { firstToken: firstToken.values(), gaps: gaps.values(), errors, firstError, calls, seconds: Math.max(0, measuredTo - measuredFrom) / 1000 };
}

/** Resolves after `ms`, or at once when `signal` aborts. */
function delay(ms: number, signal: AbortSignal): Promise<void> {
  if (ms <= 0 || signal.aborted) return Promise.resolve();
  return new Promise((resolve) => {
    const done = () => {
      clearTimeout(timer);
      signal.removeEventListener("abort", done);
      resolve();
    };
    const timer = setTimeout(done, ms);
    signal.addEventListener("abort", done, { once: true });
  });
}

/** One measured stream. */
interface StreamCall {
  readonly firstToken: number;
  readonly gaps: number[];
}

/** A worker's kept-alive connection: one call at a time, reopened when the server closes it. */
class WorkerConnection {
  private socket: Socket | undefined;

  constructor(
    private readonly target: StreamTarget,
    private readonly signal: AbortSignal,
  ) {}

  close(): void {
    this.socket?.destroy();
    this.socket = undefined;
  }

  async call(): Promise<StreamCall> {
    const socket = this.socket ?? (await this.open());
    this.socket = socket;
    return new Promise<StreamCall>((resolve, reject) => {
      const started = performance.now();
      const scan = createDataScanner();
      const gaps: number[] = [];
      let head: ResponseHead | undefined;
      let first = -1;
      let last = 0;
      /** When the bytes being parsed arrived; pieces parsed from one arrival are one piece of the stream, timed once. */
      let arrivedAt = 0;
      let timed = false;
      let errorText = "";
      const finish = (error?: Error) => {
        socket.removeListener("data", onData).removeListener("close", onClose).removeListener("error", onError);
        this.signal.removeEventListener("abort", onAbort);
        if (error !== undefined || !head?.keepAlive || parser.leftover) this.close();
        if (error !== undefined) return reject(error);
        if (head!.status !== 200) return reject(new Error(`HTTP ${head!.status}: ${errorText.slice(0, 200).replace(/\s+/g, " ")}`));
        if (first < 0) return reject(new Error("stream ended without a data: chunk"));
        resolve({ firstToken: first, gaps });
      };
      const parser = new Http1ResponseParser(
        {
          head: (parsed) => void (head = parsed),
          body: (piece) => {
            if (head!.status !== 200) errorText += decoder.decode(piece, { stream: true });
            else if (timed) return;
            else if (first >= 0) gaps.push(arrivedAt - last);
            else if (scan(piece)) first = arrivedAt - started;
            else return;
            last = arrivedAt;
            timed = true;
          },
          end: () => finish(),
          malformed: (message) => finish(new Error(`malformed response: ${message}`)),
        },
        false,
      );
      const onData = (chunk: Buffer) => {
        arrivedAt = performance.now();
        timed = false;
        parser.feed(chunk);
      };
      const onClose = () => {
        if (!parser.closed()) finish(new Error("the connection closed before the stream ended"));
      };
      const onError = (error: Error) => finish(error);
      const onAbort = () => finish(new Error("deadline reached"));
      socket.on("data", onData).on("close", onClose).on("error", onError);
      this.signal.addEventListener("abort", onAbort, { once: true });
      socket.write(this.target.request);
    });
  }

  private open(): Promise<Socket> {
    return new Promise((resolve, reject) => {
      const socket = connect({ host: this.target.host, port: this.target.port, noDelay: true });
      socket.once("connect", () => {
        socket.removeListener("error", reject);
        resolve(socket);
      });
      socket.once("error", reject);
    });
  }
}
