import { spawn } from "node:child_process";
import { createServer } from "node:net";
import { openRedis } from "../redis/redis-connection.ts";

/** The Redis a benchmark's shared limits use: a throwaway server started here, or one given by URL. */
export interface BenchRedis {
  readonly url: string;
  /** Stops a throwaway server (nothing for a given URL). */
  stop(): void;
}

/** Redis's own round trip, measured in the same run: sequential PINGs on one connection (ms). */
export interface RedisRoundTrip {
  readonly pings: number;
  readonly p50Ms: number;
  readonly p95Ms: number;
}

/** Starts `redis-server` on a free loopback port (no persistence); resolves once it accepts connections. */
export async function startThrowawayRedis(): Promise<BenchRedis> {
  const port = await new Promise<number>((resolve, reject) => {
    const server = createServer();
    server.once("error", reject);
    server.listen(0, "127.0.0.1", () => {
      const address = server.address();
      server.close(() => resolve(typeof address === "object" && address !== null ? address.port : 0));
    });
  });
  const child = spawn("redis-server", ["--bind", "127.0.0.1", "--port", String(port), "--save", "", "--appendonly", "no"], { stdio: ["ignore", "pipe", "pipe"] });
  let output = "";
  await new Promise<void>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`redis-server did not start: ${output.slice(-500)}`)), 10_000);
    child.once("error", (error) => (clearTimeout(timer), reject(new Error(`cannot start redis-server (install Redis, or pass --redis-url): ${error.message}`))));
    child.stdout.setEncoding("utf8").on("data", (text: string) => {
      output += text;
      if (output.includes("Ready to accept connections")) (clearTimeout(timer), resolve());
    });
  });
  return { url: `redis://127.0.0.1:${port}`, stop: () => void child.kill("SIGKILL") };
}

/** `pings` sequential PINGs after a warm-up; their median and 95th percentile. */
export async function measureRedisRoundTrip(url: string, pings = 2000): Promise<RedisRoundTrip> {
  const redis = openRedis({ url, connectTimeoutMs: 2000, commandTimeoutMs: 2000, keyPrefix: "" });
  try {
    if (!(await redis.ready(2000))) throw new Error(`cannot reach Redis at ${new URL(url).host}`);
    for (let i = 0; i < 200; i++) await redis.ping();
    const times: number[] = [];
    for (let i = 0; i < pings; i++) times.push(await redis.ping());
    times.sort((a, b) => a - b);
    return { pings, p50Ms: times[Math.floor(pings * 0.5)]!, p95Ms: times[Math.floor(pings * 0.95)]! };
  } finally {
    await redis.close();
  }
}

/** What the report needs of a mode's points (bench-report.ts's ModeResult). */
interface FeatureModes {
  readonly mode: string;
  readonly points: ReadonlyArray<{ readonly concurrency: number; readonly direct: { readonly median: number }; readonly relays: ReadonlyArray<{ readonly id: string; readonly latency: { readonly median: number }; readonly overhead: { readonly median: number } }> }>;
}

/**
 * The --features comparisons, point by point: what a Redis-checked call adds over a
 * memory-checked one (against Redis's own round trip), and a cache hit's latency against the
 * direct call to the mock.
 */
export function featureLines(modes: readonly FeatureModes[], roundTrip: RedisRoundTrip | undefined): string[] {
  const lines: string[] = [];
  for (const { mode, points } of modes) {
    for (const point of points) {
      const byEnd = (suffix: string) => point.relays.find((relay) => relay.id.endsWith(suffix));
      const memory = point.relays.find((relay) => relay.id.endsWith("-limits") && !relay.id.endsWith("-redis-limits"));
      const redis = byEnd("-redis-limits");
      const cache = byEnd("-cache");
      const at = `${mode} c=${point.concurrency}`;
      if (memory !== undefined && redis !== undefined) {
        const added = redis.overhead.median - memory.overhead.median;
        lines.push(`${at}: Redis-checked − memory-checked median ${added < 0 ? "" : "+"}${added.toFixed(3)} ms${roundTrip === undefined ? "" : ` (Redis PING median ${roundTrip.p50Ms.toFixed(3)} ms)`}`);
      }
      if (cache !== undefined) lines.push(`${at}: cache hit median ${cache.latency.median.toFixed(3)} ms against the direct call's ${point.direct.median.toFixed(3)} ms`);
    }
  }
  return lines;
}
