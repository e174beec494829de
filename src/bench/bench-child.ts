import { spawn, type ChildProcess } from "node:child_process";
import { connect } from "node:net";
import process from "node:process";
import { childEnvironment } from "../config/child-environment.ts";

/** A server process started for the benchmark (mock, relay or passthrough). */
export interface ChildServer {
  readonly name: string;
  readonly pid: number;
  /** The `http://host:port` it printed when ready. */
  readonly url: string;
  /** SIGTERM, then SIGKILL after `graceMs`; resolves when it exited. */
  stop(graceMs?: number): Promise<void>;
}

const READY = /listening on (https?:\/\/\S+)/;
const TAIL_LINES = 20;
const running = new Set<ChildProcess>();
let hooked = false;

/**
 * Spawns `argv` and resolves once its stdout prints `listening on http://HOST:PORT`, or, for a
 * server that prints nothing (nginx), once `readyAt` (`http://HOST:PORT`) accepts a connection
 * (bounded by `timeoutMs`). Fails with its last output lines if it exits or times out first.
 * Every child is killed when this process exits or gets SIGINT/SIGTERM.
 */
export function startChildServer(name: string, argv: readonly string[], timeoutMs = 20_000, readyAt?: string): Promise<ChildServer> {
  hookExit();
  // Only what the runtime needs: the operator's RENIO_PORT, RENIO_LOG_LEVEL, … must not change the setup
  // being measured, and bench's configs name no variable, so no other secret of the operator's reaches a child.
  const child = spawn(argv[0]!, argv.slice(1), { stdio: ["ignore", "pipe", "pipe"], env: childEnvironment(process.env) });
  running.add(child);
  const tail: string[] = [];
  const remember = (line: string) => {
    tail.push(line);
    if (tail.length > TAIL_LINES) tail.shift();
  };
  const exited = new Promise<void>((resolve) => child.once("exit", () => resolve()));
  exited.then(() => running.delete(child));
  return new Promise<ChildServer>((resolve, reject) => {
    let settled = false;
    let pending = "";
    const fail = (why: string) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      child.kill("SIGKILL");
      reject(new Error(`${name}: ${why}${tail.length > 0 ? `; its last output:\n  ${tail.join("\n  ")}` : ""}`));
    };
    const timer = setTimeout(() => fail(`not ready after ${timeoutMs} ms`), timeoutMs);
    const ready = (url: string) => {
      settled = true;
      clearTimeout(timer);
      resolve({ name, pid: child.pid!, url: url.replace(/\/+$/, ""), stop: (graceMs) => stopChild(child, exited, graceMs) });
    };
    if (readyAt !== undefined) void pollConnect(readyAt, () => settled).then((up) => up && !settled && ready(readyAt));
    child.once("error", (error) => fail(`could not start ${argv[0]}: ${error.message}`));
    child.once("exit", (code, signal) => fail(`exited before it was ready (${signal ?? `code ${code}`})`));
    child.stderr!.setEncoding("utf8").on("data", (text: string) => text.split("\n").filter(Boolean).forEach(remember));
    child.stdout!.setEncoding("utf8").on("data", (text: string) => {
      pending += text;
      let newline: number;
      while ((newline = pending.indexOf("\n")) >= 0) {
        const line = pending.slice(0, newline);
        pending = pending.slice(newline + 1);
        remember(line);
        const match = settled ? null : READY.exec(line);
        if (match) ready(match[1]!);
      }
    });
  });
}

/** Tries a TCP connection to `url` every 50 ms until one succeeds (true) or `given()` says to stop (false). */
async function pollConnect(url: string, given: () => boolean): Promise<boolean> {
  const { hostname, port } = new URL(url);
  while (!given()) {
    const up = await new Promise<boolean>((resolve) => {
      const socket = connect({ host: hostname, port: Number(port) });
      socket.once("connect", () => (socket.destroy(), resolve(true)));
      socket.once("error", () => (socket.destroy(), resolve(false)));
    });
    if (up) return true;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  return false;
}

async function stopChild(child: ChildProcess, exited: Promise<void>, graceMs = 5000): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  child.kill("SIGTERM");
  let timer: ReturnType<typeof setTimeout> | undefined;
  const killed = new Promise<void>((resolve) => {
    timer = setTimeout(() => {
      child.kill("SIGKILL");
      resolve();
    }, graceMs);
  });
  await Promise.race([exited, killed]);
  clearTimeout(timer);
  await exited;
}

/** Kills every child still running (synchronously, SIGKILL). */
export function killAllChildren(): void {
  for (const child of running) child.kill("SIGKILL");
  running.clear();
}

function hookExit(): void {
  if (hooked) return;
  hooked = true;
  process.once("exit", killAllChildren);
  for (const signal of ["SIGINT", "SIGTERM"] as const) {
    process.on(signal, () => {
      killAllChildren();
      // Exit as the signal would have, unless something else in this process stops on it (a command's own handler).
      if (process.listenerCount(signal) === 1) process.exit(signal === "SIGINT" ? 130 : 143);
    });
  }
}
