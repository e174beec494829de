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
  /**
   * The same PING after the connection sat idle as long as between two calls at one in flight
   * of each mode (the mock's answer): the round trip a relay's check meets there, both
   * processes woken from idle.
   */
  readonly paced?: readonly PacedRoundTrip[];
}

/** PINGs each sent after `pauseMs` idle, for the calls of `mode`. */
export interface PacedRoundTrip {
  readonly mode: string;
  readonly pauseMs: number;
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

/** `pings` sequential PINGs after a warm-up, then `pacedPings` after each pause of `pauses`; their medians and 95th percentiles. */
export async function measureRedisRoundTrip(url: string, pings = 2000, pauses: ReadonlyArray<{ readonly mode: string; readonly pauseMs: number }> = [], pacedPings = 300): Promise<RedisRoundTrip> {
  const redis = openRedis({ url, connectTimeoutMs: 2000, commandTimeoutMs: 2000, keyPrefix: "" });
  const percentiles = (times: number[]) => {
    times.sort((a, b) => a - b);
    return { p50Ms: times[Math.floor(times.length * 0.5)]!, p95Ms: times[Math.floor(times.length * 0.95)]! };
  };
  try {
    if (!(await redis.ready(2000))) throw new Error(`cannot reach Redis at ${new URL(url).host}`);
    for (let i = 0; i < 200; i++) await redis.ping();
    const times: number[] = [];
    for (let i = 0; i < pings; i++) times.push(await redis.ping());
    const paced: PacedRoundTrip[] = [];
    for (const { mode, pauseMs } of pauses) {
      const after: number[] = [];
      for (let i = 0; i < pacedPings; i++) {
        await new Promise((resolve) => setTimeout(resolve, pauseMs));
        after.push(await redis.ping());
      }
      paced.push({ mode, pauseMs, pings: pacedPings, ...percentiles(after) });
    }
    return { pings, ...percentiles(times), ...(paced.length > 0 ? { paced } : {}) };
  } finally {
    await redis.close();
  }
}

/** The PINGs a check in `mode` compares with: "median X ms back to back, Y ms after Z ms idle". */
function pingNote(roundTrip: RedisRoundTrip | undefined, mode: string): string {
  if (roundTrip === undefined) return "";
  const paced = roundTrip.paced?.find((trip) => trip.mode === mode);
  const idle = paced === undefined ? "" : `, ${paced.p50Ms.toFixed(3)} ms after ${paced.pauseMs} ms idle as between calls`;
  return ` (Redis PING median ${roundTrip.p50Ms.toFixed(3)} ms back to back${idle})`;
}

/** What the report needs of a mode's points (bench-report.ts's ModeResult). */
interface FeatureModes {
  readonly mode: string;
  readonly points: ReadonlyArray<{ readonly concurrency: number; readonly direct: { readonly median: number }; readonly relays: ReadonlyArray<{ readonly id: string; readonly latency: { readonly median: number }; readonly overhead: { readonly median: number } }> }>;
}

/** The id suffix of the same Redis-checked relay called with a key no limit applies to. */
export const UNCHECKED_SUFFIX = "-unchecked-key";

/**
 * The --features comparisons, point by point: what a Redis-checked call adds over a
 * memory-checked one (two processes) and over an unchecked call on the same relay (one
 * process, the two keys' calls interleaved one by one: free of the differences between processes
 * and between moments), against Redis's own
 * round trip; and a cache hit's latency against the direct call to the mock.
 */
export function featureLines(modes: readonly FeatureModes[], roundTrip: RedisRoundTrip | undefined): string[] {
  const lines: string[] = [];
  for (const { mode, points } of modes) {
    for (const point of points) {
      const byEnd = (suffix: string) => point.relays.find((relay) => relay.id.endsWith(suffix));
      const memory = point.relays.find((relay) => relay.id.endsWith("-limits") && !relay.id.endsWith("-redis-limits"));
      const redis = byEnd("-redis-limits");
      const unchecked = redis && point.relays.find((relay) => relay.id === redis.id + UNCHECKED_SUFFIX);
      const cache = byEnd("-cache");
      const at = `${mode} c=${point.concurrency}`;
      const ping = pingNote(roundTrip, mode);
      const signed = (ms: number) => `${ms < 0 ? "" : "+"}${ms.toFixed(3)}`;
      if (memory !== undefined && redis !== undefined) lines.push(`${at}: Redis-checked − memory-checked median ${signed(redis.overhead.median - memory.overhead.median)} ms${ping}`);
      if (redis !== undefined && unchecked !== undefined) lines.push(`${at}: Redis-checked − unchecked on the same relay median ${signed(redis.overhead.median - unchecked.overhead.median)} ms${ping}`);
      if (cache !== undefined) lines.push(`${at}: cache hit median ${cache.latency.median.toFixed(3)} ms against the direct call's ${point.direct.median.toFixed(3)} ms`);
    }
  }
  return lines;
}
