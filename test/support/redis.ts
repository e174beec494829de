import { spawn, type ChildProcess } from "node:child_process";
import { randomUUID } from "node:crypto";
import process from "node:process";
import { freePort } from "./free-port.ts";
import type { CertFiles } from "./self-signed-cert.ts";

/** A Redis server this test process started (Debian's redis-server, no persistence, loopback). */
export interface RedisServer {
  readonly url: string;
  /** Stops the server (SIGKILL: an outage, not a goodbye). */
  stop(): Promise<void>;
  /** Starts it again on the same port (empty: it keeps nothing). */
  start(): Promise<void>;
}

const running = new Set<ChildProcess>();
process.on("exit", () => running.forEach((child) => child.kill("SIGKILL")));

/**
 * Starts a throwaway redis-server on a free loopback port (`extra`: more of its options); resolves
 * once it accepts connections. With `tls` it speaks only TLS on that port, with that certificate
 * (its URL is then rediss://).
 */
export async function startRedisServer(extra: readonly string[] = [], tls?: CertFiles): Promise<RedisServer> {
  const port = await freePort();
  const listen = tls === undefined ? ["--port", String(port)] : ["--port", "0", "--tls-port", String(port), "--tls-cert-file", tls.certFile, "--tls-key-file", tls.keyFile, "--tls-auth-clients", "no"];
  let child: ChildProcess | undefined;
  const start = async () => {
    const server = spawn("redis-server", ["--bind", "127.0.0.1", ...listen, "--save", "", "--appendonly", "no", ...extra], { stdio: ["ignore", "pipe", "pipe"] });
    running.add(server);
    child = server;
    let output = "";
    await new Promise<void>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`redis-server did not start: ${output}`)), 10_000);
      server.stdout!.setEncoding("utf8").on("data", (text: string) => {
        output += text;
        if (output.includes("Ready to accept connections")) {
          clearTimeout(timer);
          resolve();
        }
      });
      server.once("exit", (code) => {
        clearTimeout(timer);
        reject(new Error(`redis-server exited (${code}): ${output}`));
      });
    });
  };
  await start();
  return {
    url: `${tls === undefined ? "redis" : "rediss"}://127.0.0.1:${port}`,
    async stop() {
      const server = child;
      if (server === undefined || server.exitCode !== null) return;
      const exited = new Promise((resolve) => server.once("exit", resolve));
      server.kill("SIGKILL");
      await exited;
      running.delete(server);
    },
    start,
  };
}

let shared: Promise<string> | undefined;

/** `RENIO_TEST_REDIS_URL` if set, else a server started once per test process. */
export function testRedisUrl(): Promise<string> {
  shared ??= process.env.RENIO_TEST_REDIS_URL ? Promise.resolve(process.env.RENIO_TEST_REDIS_URL) : startRedisServer().then((server) => server.url);
  return shared;
}

/** A key prefix no other test uses, so tests sharing one server never see each other's keys. */
export function testKeyPrefix(): string {
  return `test-${randomUUID().slice(0, 8)}:`;
}
