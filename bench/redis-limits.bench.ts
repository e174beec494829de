/**
 * The shared limiter's round trip against Redis's own: PING and the admit script back to back,
 * then each after the event loop sat idle for 2 ms (as a relay's does between calls at one in
 * flight). Starts a throwaway redis-server (or uses RENIO_BENCH_REDIS_URL).
 * `node_modules/.bin/bun bench/redis-limits.bench.ts`
 */
import process from "node:process";
import { startThrowawayRedis } from "../src/bench/bench-redis.ts";
import { ADMIT_SCRIPT, SETTLE_SCRIPT } from "../src/limits/rate-limit-scripts.ts";
import { openRedis } from "../src/redis/redis-connection.ts";

const given = process.env.RENIO_BENCH_REDIS_URL;
const server = given === undefined ? await startThrowawayRedis() : undefined;
const redis = openRedis({ url: given ?? server!.url, connectTimeoutMs: 2000, commandTimeoutMs: 2000, keyPrefix: "bench:" });
try {
  if (!(await redis.ready(2000))) throw new Error("cannot reach Redis");
  const admit = redis.script(ADMIT_SCRIPT);
  const settle = redis.script(SETTLE_SCRIPT);
  // One key's requests, tokens and concurrency limits, never reached.
  const keys = ["bench:{rl}:key a:requests", "bench:{rl}:key a:tokens", "bench:{rl}:key a:leases"];
  const limits = [1e9, 1e12, 1e6];
  const timed = async (run: () => Promise<unknown>) => {
    const started = performance.now();
    await run();
    return performance.now() - started;
  };
  const median = (values: number[]) => values.sort((a, b) => a - b)[Math.floor(values.length / 2)]!;
  const idle = () => new Promise((resolve) => setTimeout(resolve, 2));
  for (let i = 0; i < 300; i++) await admit(keys, [100, 30_000, `w${i}`, ...limits]).then(() => settle(keys, [0, 50, `w${i}`, ...limits]));
  const hot = { ping: [] as number[], admit: [] as number[] };
  for (let i = 0; i < 2000; i++) {
    hot.ping.push(await timed(() => redis.ping()));
    hot.admit.push(await timed(() => admit(keys, [100, 30_000, `h${i}`, ...limits])));
    await settle(keys, [0, 50, `h${i}`, ...limits]);
  }
  const afterIdle = { ping: [] as number[], admit: [] as number[] };
  for (let i = 0; i < 300; i++) {
    await idle();
    afterIdle.ping.push(await timed(() => redis.ping()));
    await idle();
    afterIdle.admit.push(await timed(() => admit(keys, [100, 30_000, `i${i}`, ...limits])));
    await settle(keys, [0, 50, `i${i}`, ...limits]);
  }
  const ms = (values: number[]) => `${median(values).toFixed(3)} ms`;
  console.log(`back to back: PING ${ms(hot.ping)}, admit script ${ms(hot.admit)} (medians of 2000)`);
  console.log(`after 2 ms idle: PING ${ms(afterIdle.ping)}, admit script ${ms(afterIdle.admit)} (medians of 300)`);
} finally {
  await redis.close();
  server?.stop();
}
