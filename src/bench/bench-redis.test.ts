import assert from "node:assert/strict";
import { test } from "node:test";
import { parseBenchArgs } from "./bench-args.ts";
import { featureLines, measureRedisRoundTrip, UNCHECKED_SUFFIX } from "./bench-redis.ts";
import { benchRelayConfig } from "./bench-relay-config.ts";
import { validateConfig } from "../config/config-load.ts";
import { testRedisUrl } from "../../test/support/redis.ts";

test("--features takes a list of settings; --redis-url only with redis-limits", () => {
  assert.deepEqual(parseBenchArgs(["--features", "limits,redis-limits,cache"]).features, ["limits", "redis-limits", "cache"]);
  assert.deepEqual(parseBenchArgs([]).features, ["off"]);
  assert.throws(() => parseBenchArgs(["--features", "bloom"]), /--features/);
  assert.throws(() => parseBenchArgs(["--redis-url", "redis://127.0.0.1:6379"]), /--redis-url applies to --features redis-limits only/);
  assert.throws(() => parseBenchArgs(["--features", "redis-limits", "--redis-url", "http://x"]), /redis:\/\//);
});

test("each feature's Renio config is valid: limits in memory, on Redis, the cache", () => {
  for (const feature of ["off", "limits", "redis-limits", "cache"] as const) {
    const raw = benchRelayConfig({ mockUrl: "http://127.0.0.1:9", model: { name: "mock-gpt", translated: false }, dir: "/tmp/x", journal: "fsync", budget: "strict", secret: "renio-bench-secret-0001", feature, redisUrl: "redis://127.0.0.1:6379" });
    const config = validateConfig(raw, {});
    assert.equal(config.rateLimits.store, feature === "redis-limits" ? "redis" : "memory");
    assert.equal(config.rateLimits.limits.length, feature === "limits" || feature === "redis-limits" ? 1 : 0);
    assert.equal(config.cache !== undefined, feature === "cache");
  }
});

test("the report sets a Redis-checked call beside a memory-checked one, beside an unchecked key on its own relay, and a cache hit beside the direct call", () => {
  const relay = (id: string, overhead: number) => ({ id, latency: { median: 2 + overhead }, overhead: { median: overhead } });
  const relays = [relay("renio-redis-limits", 0.5), relay(`renio-redis-limits${UNCHECKED_SUFFIX}`, 0.42), relay("renio-limits", 0.3), relay("renio-cache", -1.5)];
  const lines = featureLines([{ mode: "json", points: [{ concurrency: 1, direct: { median: 2 }, relays }] }], { pings: 10, p50Ms: 0.1, p95Ms: 0.2, paced: [{ mode: "json", pauseMs: 3, pings: 5, p50Ms: 0.15, p95Ms: 0.3 }] });
  assert.deepEqual(lines, [
    "json c=1: Redis-checked − memory-checked median +0.200 ms (Redis PING median 0.100 ms back to back, 0.150 ms after 3 ms idle as between calls)",
    "json c=1: Redis-checked − unchecked on the same relay median +0.080 ms (Redis PING median 0.100 ms back to back, 0.150 ms after 3 ms idle as between calls)",
    "json c=1: cache hit median 0.500 ms against the direct call's 2.000 ms",
  ]);
});

test("a Redis-checked relay has a second key no limit applies to, unless the budget is scoped to the bench key", () => {
  const base = { mockUrl: "http://127.0.0.1:1", model: { name: "mock-gpt", translated: false }, dir: "/tmp/renio-bench-test", journal: "fsync" as const, budget: "strict" as const, secret: "renio-bench-0123456789abcdef", feature: "redis-limits" as const, redisUrl: "redis://127.0.0.1:1" };
  const config = validateConfig(benchRelayConfig(base), {});
  assert.deepEqual(config.keys.map((key) => key.id), ["bench", "bench-unchecked"]);
  assert.deepEqual(config.rateLimits.limits.map((limit) => limit.scope), [{ key: "bench" }]);
  assert.deepEqual(validateConfig(benchRelayConfig({ ...base, budgetScope: "key" }), {}).keys.map((key) => key.id), ["bench"]);
  assert.deepEqual(validateConfig(benchRelayConfig({ ...base, feature: "limits" }), {}).keys.map((key) => key.id), ["bench"]);
});

test("Redis's own round trip is measured on a real server, back to back and after the idle gap of each mode's calls", async () => {
  const trip = await measureRedisRoundTrip(await testRedisUrl(), 50, [{ mode: "json", pauseMs: 3 }], 20);
  assert.equal(trip.pings, 50);
  assert.ok(trip.p50Ms > 0 && trip.p95Ms >= trip.p50Ms);
  assert.equal(trip.paced?.length, 1);
  const [paced] = trip.paced!;
  assert.deepEqual([paced!.mode, paced!.pauseMs, paced!.pings], ["json", 3, 20]);
  assert.ok(paced!.p50Ms > 0 && paced!.p95Ms >= paced!.p50Ms);
});
