import assert from "node:assert/strict";
import process from "node:process";
import { after, before, test } from "node:test";
import { startMockServer, startRelay, TEST_KEY, type MockServer } from "../../support/relay-harness.ts";
import { chatBody, errorOf, post } from "../../support/relay-calls.ts";
import { startRedisServer, testKeyPrefix, testRedisUrl, type RedisServer } from "../../support/redis.ts";
import { relayConfig, scratchDir, startRelayProcess, writeConfig } from "../../support/relay-process.ts";
import { eventually } from "../../support/sse-bytes.ts";
import { Scrape, scrape } from "../../support/prom-scrape.ts";
import { selfSignedCert } from "../../support/self-signed-cert.ts";

const METRICS_TOKEN = "metrics-token-for-tests-0001";

let mock: MockServer;
before(async () => {
  mock = await startMockServer();
});
after(() => mock.stop());

async function metrics(url: string): Promise<Scrape> {
  return new Scrape((await scrape(url, METRICS_TOKEN)).text);
}

test("a relay killed holding 8 leases: its slots are free again within the lease time", async () => {
  const slow = await startMockServer({ latencyMs: 60_000 });
  const redis = { url: await testRedisUrl(), keyPrefix: testKeyPrefix() };
  const rateLimits = { store: "redis", leaseMs: 1500, limits: [{ scope: { key: "test" }, concurrent: 8 }] };
  const dir = scratchDir();
  const child = await startRelayProcess(writeConfig(dir, relayConfig(slow.url, { type: "sqlite", path: `${dir}/renio.db` }, { redis, rateLimits })));
  const survivor = await startRelay(mock.url, { redis, rateLimits });
  try {
    const held = Array.from({ length: 8 }, () => post(child.url, "/v1/chat/completions", chatBody()).catch(() => undefined));
    assert.ok(await eventually(() => slow.mock.stats().received === 8, 10_000), "the killed relay's 8 calls are in flight");
    const refused = await post(survivor.url, "/v1/chat/completions", chatBody());
    assert.equal(refused.status, 429, "8 leases held elsewhere: no slot here");
    assert.match((await errorOf(refused)).message, /8 concurrent calls/);
    await child.stop("SIGKILL");
    await Promise.all(held);
    const killedAt = performance.now();
    let status = 0;
    assert.ok(
      await eventually(async () => {
        const response = await post(survivor.url, "/v1/chat/completions", chatBody());
        status = response.status;
        await response.body?.cancel();
        return status === 200;
      }, 10_000, 100),
      `no slot came back (last status ${status})`,
    );
    const freedMs = performance.now() - killedAt;
    process.stderr.write(`  killed relay's 8 leases free ${Math.round(freedMs)} ms after the kill (leaseMs 1500)\n`);
    assert.ok(freedMs <= 1500 + 1000, `slots came back ${Math.round(freedMs)} ms after the kill (lease 1500 ms)`);
  } finally {
    await survivor.stop();
    await slow.stop();
  }
});

/** A relay with its own Redis (stopped and started by the test) and a limit of 4 requests a minute shared by 2 relays. */
async function relayOnOwnRedis(onStoreDown: "refuse" | "local"): Promise<{ redis: RedisServer; url: string; stop: () => Promise<void> }> {
  const redis = await startRedisServer();
  const relay = await startRelay(mock.url, {
    server: { host: "127.0.0.1", port: 0, shutdownGraceMs: 2000, metricsToken: METRICS_TOKEN },
    redis: { url: redis.url, commandTimeoutMs: 300, connectTimeoutMs: 300 },
    rateLimits: { store: "redis", onStoreDown, relays: 2, limits: [{ scope: { key: "test" }, requestsPerMinute: 4 }] },
  });
  return { redis, url: relay.url, stop: async () => (await relay.stop(), await redis.stop()) };
}

const call = async (url: string) => {
  const response = await post(url, "/v1/chat/completions", chatBody(), { authorization: `Bearer ${TEST_KEY}` });
  return { status: response.status, code: response.status === 200 ? "" : (await errorOf(response)).code };
};

test("onStoreDown refuse: 503 while Redis is away, counted on /metrics; back by itself when Redis returns", async () => {
  const relay = await relayOnOwnRedis("refuse");
  try {
    assert.equal((await call(relay.url)).status, 200);
    // Stopped under load: every call in flight is decided by Redis (200, 429) or refused (503); none fails otherwise.
    const load = Array.from({ length: 40 }, () => call(relay.url));
    await relay.redis.stop();
    const statuses = (await Promise.all(load)).map((result) => result.status);
    assert.deepEqual(statuses.filter((status) => ![200, 429, 503].includes(status)), [], `statuses: ${statuses.join(",")}`);
    assert.ok(statuses.filter((status) => status === 200).length <= 3, "never past the limit (4 a minute, 1 used)");
    assert.deepEqual(await call(relay.url), { status: 503, code: "rate_limit_store_unavailable" });
    const down = await metrics(relay.url);
    assert.equal(down.sum("renio_rate_limit_store_up"), 0);
    assert.ok(down.sum("renio_rate_limit_store_refusals_total") >= 1);
    await relay.redis.start();
    assert.ok(await eventually(async () => (await call(relay.url)).status === 200, 10_000, 100), "admits again once Redis is back");
    assert.equal((await metrics(relay.url)).sum("renio_rate_limit_store_up"), 1);
  } finally {
    await relay.stop();
  }
});

test("a Redis that requires a password: the relay authenticates with the URL's; a wrong one counts as the store down", async () => {
  const redis = await startRedisServer(["--requirepass", "s3cret-for-tests"]);
  const rateLimits = { store: "redis", limits: [{ scope: { key: "test" }, requestsPerMinute: 100 }] };
  const right = await startRelay(mock.url, { redis: { url: redis.url.replace("redis://", "redis://:s3cret-for-tests@"), connectTimeoutMs: 500 }, rateLimits });
  const wrong = await startRelay(mock.url, { redis: { url: redis.url.replace("redis://", "redis://:not-the-password@"), connectTimeoutMs: 500, commandTimeoutMs: 300 }, rateLimits });
  try {
    assert.equal((await call(right.url)).status, 200);
    const refused = await call(wrong.url);
    assert.deepEqual(refused, { status: 503, code: "rate_limit_store_unavailable" });
  } finally {
    await Promise.all([right.stop(), wrong.stop()]);
    await redis.stop();
  }
});

test("a Redis that speaks only TLS: the relay checks its certificate against redis.caFile; an untrusted one, or plain text, counts as the store down", async () => {
  const dir = scratchDir();
  const server = selfSignedCert(dir, "redis");
  const stranger = selfSignedCert(dir, "stranger");
  const redis = await startRedisServer([], server);
  const rateLimits = { store: "redis", limits: [{ scope: { key: "test" }, requestsPerMinute: 2 }] };
  const timeouts = { connectTimeoutMs: 500, commandTimeoutMs: 300 };
  const trusted = await startRelay(mock.url, { redis: { url: redis.url, caFile: server.certFile, ...timeouts }, rateLimits });
  const untrusted = await startRelay(mock.url, { redis: { url: redis.url, caFile: stranger.certFile, ...timeouts }, rateLimits });
  const plain = await startRelay(mock.url, { redis: { url: redis.url.replace("rediss://", "redis://"), ...timeouts }, rateLimits });
  try {
    assert.match(redis.url, /^rediss:\/\//);
    const statuses = [];
    for (let i = 0; i < 3; i++) statuses.push((await call(trusted.url)).status);
    assert.deepEqual(statuses, [200, 200, 429], "the shared limit is kept over TLS");
    assert.deepEqual(await call(untrusted.url), { status: 503, code: "rate_limit_store_unavailable" }, "a certificate the CA file does not vouch for is never used");
    assert.deepEqual(await call(plain.url), { status: 503, code: "rate_limit_store_unavailable" }, "no fallback to plain text");
  } finally {
    await Promise.all([trusted.stop(), untrusted.stop(), plain.stop()]);
    await redis.stop();
  }
});

test("onStoreDown local: the relay's share (4 a minute over 2 relays: 2) while Redis is away, then the shared limit again", async () => {
  const relay = await relayOnOwnRedis("local");
  try {
    await relay.redis.stop();
    const statuses = [];
    for (let i = 0; i < 3; i++) statuses.push((await call(relay.url)).status);
    assert.deepEqual(statuses, [200, 200, 429], "two admitted at this relay's share, the third refused");
    const down = await metrics(relay.url);
    assert.equal(down.sum("renio_rate_limit_store_fallbacks_total"), 3);
    assert.equal(down.sum("renio_rate_limit_store_up"), 0);
    // A fresh server has no record of the calls decided locally: the shared limit of 4 applies from zero.
    await relay.redis.start();
    assert.ok(await eventually(async () => (await call(relay.url)).status === 200, 10_000, 100));
    assert.equal((await metrics(relay.url)).sum("renio_rate_limit_store_up"), 1);
    const more = [];
    for (let i = 0; i < 4; i++) more.push((await call(relay.url)).status);
    assert.deepEqual(more, [200, 200, 200, 429], "the shared limit (4) counts again, the call above included");
  } finally {
    await relay.stop();
  }
});
