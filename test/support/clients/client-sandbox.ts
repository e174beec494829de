import { spawn } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { createServer, type Socket } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import process from "node:process";

/**
 * Keeps the real clients on loopback: each child runs with a fresh HOME, telemetry and update
 * checks off, and every proxy variable pointing at a loopback sink that refuses (and records)
 * any attempt to reach another host; in-process SDKs run behind a fetch guard that does the same.
 */

/** A loopback "proxy" that refuses every request and records where it was asked to go. */
export interface Sink {
  readonly url: string;
  /** Destinations asked for (`host:port` of a CONNECT, or an absolute URL). */
  readonly attempts: string[];
  stop(): Promise<void>;
}

/** Starts the sink on a free loopback port. */
export async function startSink(): Promise<Sink> {
  const attempts: string[] = [];
  const sockets = new Set<Socket>();
  const server = createServer((socket) => {
    sockets.add(socket);
    socket.on("close", () => sockets.delete(socket));
    socket.on("error", () => {});
    socket.once("data", (data: Buffer) => {
      const [, target] = data.toString("latin1").split("\r\n", 1)[0]!.split(" ");
      if (target !== undefined) attempts.push(target);
      socket.end("HTTP/1.1 502 Bad Gateway\r\ncontent-length: 0\r\nconnection: close\r\n\r\n");
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const address = server.address();
  const port = typeof address === "object" && address !== null ? address.port : 0;
  return {
    url: `http://127.0.0.1:${port}`,
    attempts,
    stop: () =>
      new Promise<void>((resolve) => {
        for (const socket of sockets) socket.destroy();
        server.close(() => resolve());
      }),
  };
}

const dirs: string[] = [];
process.on("exit", () => dirs.forEach((dir) => rmSync(dir, { recursive: true, force: true })));

/** A fresh temporary directory, removed when the test process exits. */
export function tempDir(prefix: string): string {
  const dir = mkdtempSync(join(tmpdir(), `renio-${prefix}-`));
  dirs.push(dir);
  return dir;
}

/** A child's whole environment: nothing of the test process's but PATH; HOME and the proxies set; `extra` on top. */
export function childEnv(home: string, sink: Sink, extra: Record<string, string>): Record<string, string> {
  return {
    PATH: process.env.PATH ?? "/usr/bin:/bin",
    HOME: home,
    LANG: "C.UTF-8",
    NO_COLOR: "1",
    TERM: "dumb",
    HTTP_PROXY: sink.url,
    HTTPS_PROXY: sink.url,
    ALL_PROXY: sink.url,
    http_proxy: sink.url,
    https_proxy: sink.url,
    NO_PROXY: "127.0.0.1,localhost",
    no_proxy: "127.0.0.1,localhost",
    ...extra,
  };
}

/** How a child ended. */
export interface ChildRun {
  readonly code: number | null;
  readonly stdout: string;
  readonly stderr: string;
  readonly timedOut: boolean;
}

/** Runs `command` with `args` (stdin closed), bounded by `timeoutMs` (then killed). */
export function runChild(command: string, args: readonly string[], options: { env: Record<string, string>; cwd: string; timeoutMs: number }): Promise<ChildRun> {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, { cwd: options.cwd, env: options.env, stdio: ["ignore", "pipe", "pipe"] });
    let stdout = "";
    let stderr = "";
    let timedOut = false;
    child.stdout.setEncoding("utf8").on("data", (chunk: string) => (stdout += chunk));
    child.stderr.setEncoding("utf8").on("data", (chunk: string) => (stderr += chunk));
    const timer = setTimeout(() => {
      timedOut = true;
      child.kill("SIGKILL");
    }, options.timeoutMs);
    child.once("error", (error) => {
      clearTimeout(timer);
      reject(error);
    });
    child.once("close", (code) => {
      clearTimeout(timer);
      resolve({ code, stdout, stderr, timedOut });
    });
  });
}

/** Whether a URL's host is this machine's loopback. */
function loopback(url: string): boolean {
  const host = new URL(url).hostname;
  return host === "127.0.0.1" || host === "localhost" || host === "[::1]";
}

/**
 * Replaces globalThis.fetch with one that refuses (and records) any URL off loopback, for SDKs
 * running in this process. Returns the attempts and the undo.
 */
export function guardFetch(): { readonly attempts: string[]; restore(): void } {
  const original = globalThis.fetch;
  const attempts: string[] = [];
  const guarded = (input: RequestInfo | URL, init?: RequestInit): Promise<Response> => {
    const url = typeof input === "string" ? input : input instanceof URL ? input.href : input.url;
    if (!loopback(url)) {
      attempts.push(url);
      return Promise.reject(new TypeError(`the client-compatibility suite keeps clients on loopback; refused ${url}`));
    }
    return original(input, init);
  };
  globalThis.fetch = Object.assign(guarded, { preconnect: () => {} }) as typeof fetch;
  return { attempts, restore: () => (globalThis.fetch = original) };
}
