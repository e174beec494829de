import assert from "node:assert/strict";
import process from "node:process";
import { after, before, describe, test } from "node:test";
import { startMockServer, startRelay, type MockServer, type RelayUnderTest } from "../../support/relay-harness.ts";
import { booksReport } from "../../../src/budgets/books-check.ts";
import { ADMIT_SCRIPT, SETTLE_SCRIPT } from "../../../src/limits/rate-limit-scripts.ts";
import { allEntries, chatBody, errorOf, finishedEntries, post } from "../../support/relay-calls.ts";
import { startRedisServer, testKeyPrefix, testRedisUrl } from "../../support/redis.ts";
import { Redis } from "ioredis";
import { openRelay } from "../../support/with-relay.ts";
import { eventually } from "../../support/sse-bytes.ts";

const SECRETS = { rpm: "sk-renio-shared-rpm-0001", tpm: "sk-renio-shared-tpm-0001", concurrent: "sk-renio-shared-conc-001" };
const CALLS = 300;
/** The token bound Renio reserves for chatBody() (its bytes plus max_tokens). */
const BOUND = new TextEncoder().encode(JSON.stringify(chatBody())).byteLength + 100;

let fast: MockServer;
/** Answers after 4 s: calls hold their reservations and leases while the others are decided. */
let slow: MockServer;
let relays: RelayUnderTest[] = [];

before(async () => {
  fast = await startMockServer();
  slow = await startMockServer({ latencyMs: 4000 });
  const redis = { url: await testRedisUrl(), keyPrefix: testKeyPrefix() };
  for (let i = 0; i < 3; i++) {
    relays.push(
      await startRelay(fast.url, {
        providers: { mock: { type: "mock", baseUrl: fast.url, firstByteTimeoutMs: 15_000 }, slow: { type: "mock", baseUrl: slow.url, firstByteTimeoutMs: 15_000 } },
        models: { "mock-gpt": { provider: "mock" }, "slow-gpt": { provider: "slow" } },
        keys: [
          { id: "rpm", secret: SECRETS.rpm, project: "a" },
          { id: "tpm", secret: SECRETS.tpm, project: "b" },
          { id: "concurrent", secret: SECRETS.concurrent, project: "c" },
        ],
        redis,
        rateLimits: {
          store: "redis",
          limits: [
            { scope: { key: "rpm" }, requestsPerMinute: 60 },
            { scope: { key: "tpm" }, tokensPerMinute: 10 * BOUND },
            { scope: { key: "concurrent" }, concurrent: 8 },
          ],
        },
      }),
    );
  }
});

after(async () => {
  await Promise.all(relays.map((relay) => relay.stop()));
  await Promise.all([fast.stop(), slow.stop()]);
});

/** Sends CALLS calls at once, spread over the three relays; the statuses and the run's length (s). */
async function burst(secret: string, model: string): Promise<{ statuses: number[]; seconds: number; refused: Response | undefined }> {
  const started = performance.now();
  let refused: Response | undefined;
  const statuses = await Promise.all(
    Array.from({ length: CALLS }, async (_, i) => {
      const response = await post(relays[i % 3]!.url, "/v1/chat/completions", chatBody({ model }), { authorization: `Bearer ${secret}` });
      if (response.status === 429 && refused === undefined) refused = response;
      else await response.body?.cancel();
      return response.status;
    }),
  );
  return { statuses, seconds: (performance.now() - started) / 1000, refused };
}

describe("three relays sharing Redis", () => {
  test("admit the requests limit once between them, not once each", async () => {
    const { statuses, seconds, refused } = await burst(SECRETS.rpm, "mock-gpt");
    const admitted = statuses.filter((status) => status === 200).length;
    process.stderr.write(`  shared requests limit: ${admitted} of ${CALLS} admitted in ${seconds.toFixed(2)} s (limit 60 a minute)\n`);
    assert.equal(admitted + statuses.filter((status) => status === 429).length, CALLS, "every call is admitted or refused with 429");
    // The bucket refills one request a second while the burst runs: exactly the limit plus that.
    assert.ok(admitted >= 60 && admitted <= 60 + Math.ceil(seconds), `admitted ${admitted} in ${seconds.toFixed(2)} s (limit 60 a minute; on memory limits three relays admit 180)`);
    assert.ok(refused !== undefined);
    assert.equal(refused.headers.get("x-ratelimit-limit-requests"), "60", "the SDK headers report the shared limit");
    assert.equal(refused.headers.get("x-ratelimit-remaining-requests"), "0", "…as the shared state stands");
    assert.ok(Number(refused.headers.get("retry-after-ms")) > 0);
    assert.match((await errorOf(refused)).message, /key rpm: 60 requests per minute/);
  });

  test("reserve the tokens limit once between them while the calls run", async () => {
    const { statuses, seconds } = await burst(SECRETS.tpm, "slow-gpt");
    const admitted = statuses.filter((status) => status === 200).length;
    process.stderr.write(`  shared tokens limit: ${admitted} of ${CALLS} admitted in ${seconds.toFixed(2)} s (10 bounds fit)\n`);
    // Ten bounds fit; the refill while the burst runs is a sixth of a bound a second.
    assert.ok(admitted >= 10 && admitted <= 10 + Math.ceil(seconds / 6), `admitted ${admitted} in ${seconds.toFixed(2)} s (10 calls' bounds fit)`);
  });

  test("hold the concurrency limit between them: 8 calls in flight, whichever relay runs them", async () => {
    const { statuses, seconds } = await burst(SECRETS.concurrent, "slow-gpt");
    process.stderr.write(`  shared concurrency limit: ${statuses.filter((status) => status === 200).length} of ${CALLS} admitted in ${seconds.toFixed(2)} s (8 in flight)\n`);
    assert.equal(statuses.filter((status) => status === 200).length, 8);
    // The slots came back when the calls ended: the next call is admitted.
    const next = await post(relays[1]!.url, "/v1/chat/completions", chatBody({ model: "mock-gpt" }), { authorization: `Bearer ${SECRETS.concurrent}` });
    assert.equal(next.status, 200);
    await next.body?.cancel();
  });
});

describe("a call the shared limits refuse, decided while its admission is written", () => {
  test("is journaled refused with the limit's code, and the budget keeps nothing of its reservation", async () => {
    const secret = "sk-renio-shared-books-01";
    const opened = await openRelay(fast.url, {
      keys: [{ id: "booked", secret, project: "books" }],
      prices: { "mock-gpt": { input: 1, cachedInput: 1, output: 4 } },
      budgets: [{ id: "books", scope: { project: "books" }, period: "total", limit: 100, mode: "strict" }],
      redis: { url: await testRedisUrl(), keyPrefix: testKeyPrefix() },
      rateLimits: { store: "redis", limits: [{ scope: { key: "booked" }, requestsPerMinute: 3 }] },
    });
    try {
      const ids: string[] = [];
      const statuses: number[] = [];
      for (let i = 0; i < 6; i++) {
        const response = await post(opened.relay.url, "/v1/chat/completions", chatBody(), { authorization: `Bearer ${secret}` });
        statuses.push(response.status);
        ids.push(response.headers.get("x-request-id")!);
        if (response.status === 429) assert.equal((await errorOf(response)).code, "rate_limit_exceeded");
        else await response.arrayBuffer();
      }
      assert.deepEqual(statuses, [200, 200, 200, 429, 429, 429]);
      const entries = await finishedEntries(opened.store, ids, 10_000);
      const served = ids.slice(0, 3).map((id) => entries.get(id)!);
      const limited = ids.slice(3).map((id) => entries.get(id)!);
      assert.deepEqual(served.map((entry) => entry.outcome), ["ok", "ok", "ok"]);
      assert.deepEqual(limited.map((entry) => [entry.outcome, entry.status, entry.errorCode, entry.cost ?? 0]), Array(3).fill(["refused", 429, "rate_limit_exceeded", 0]));
      assert.equal((await allEntries(opened.store)).filter((entry) => entry.outcome === "started").length, 0, "no entry is left open");
      const [row] = await opened.store.budgetUsage([{ budgetId: "books", period: "total" }]);
      assert.equal(row!.reserved, 0, "the refused calls' reservations were released");
      const paid = served.reduce((sum, entry) => sum + entry.cost!, 0);
      assert.ok(paid > 0 && Math.abs(row!.spent - paid) < 1e-9, `spent ${row!.spent} is what the served calls cost (${paid})`);
      assert.ok(booksReport(await opened.store.checkBooks()).ok, "the books' check holds");
    } finally {
      await opened.stop();
    }
  });
});

describe("round trips to Redis per call", () => {
  /** How many scripts the server ran (EVALSHA and EVAL), from its own counters. */
  const scriptsRun = async (admin: Redis) => {
    const stats = await admin.info("commandstats");
    return [...stats.matchAll(/^cmdstat_(?:evalsha|eval):calls=(\d+)/gm)].reduce((sum, match) => sum + Number(match[1]), 0);
  };

  test("one for a call under requests limits only; two when tokens or calls in flight must be given back", async () => {
    const server = await startRedisServer();
    const admin = new Redis(server.url);
    const secrets = { requests: "sk-renio-shared-trips-req1", held: "sk-renio-shared-trips-held" };
    const opened = await openRelay(fast.url, {
      keys: [
        { id: "requests", secret: secrets.requests, project: "trips" },
        { id: "held", secret: secrets.held, project: "trips" },
      ],
      redis: { url: server.url },
      rateLimits: { store: "redis", limits: [{ scope: { key: "requests" }, requestsPerMinute: 1000 }, { scope: { key: "held" }, requestsPerMinute: 1000, concurrent: 4 }] },
    });
    try {
      const calls = async (secret: string) => {
        for (let i = 0; i < 5; i++) {
          const response = await post(opened.relay.url, "/v1/chat/completions", chatBody(), { authorization: `Bearer ${secret}` });
          assert.equal(response.status, 200);
          await response.arrayBuffer();
        }
      };
      // Scripts the server already knows: no call pays for loading one.
      await admin.script("LOAD", ADMIT_SCRIPT);
      await admin.script("LOAD", SETTLE_SCRIPT);
      const before = await scriptsRun(admin);
      await calls(secrets.requests);
      assert.equal((await scriptsRun(admin)) - before, 5, "one admission script per call");
      await calls(secrets.held);
      // Settlements are sent after the answers: each of these calls gives its lease back, and none of the first five settled late.
      let run = 0;
      assert.ok(await eventually(async () => (run = (await scriptsRun(admin)) - before) >= 15, 5_000), `scripts run: ${run}`);
      assert.equal(run, 15, "5 admissions, then 5 admissions and 5 settlements");
    } finally {
      await opened.stop();
      admin.disconnect();
      await server.stop();
    }
  });

  test("a call's settlement comes before the next call's decision: one call at a time under a limit of one in flight is never refused", async () => {
    const server = await startRedisServer();
    const admin = new Redis(server.url);
    const secret = "sk-renio-shared-one-at-a-time";
    const opened = await openRelay(fast.url, {
      keys: [{ id: "single", secret, project: "single" }],
      redis: { url: server.url },
      rateLimits: { store: "redis", limits: [{ scope: { key: "single" }, concurrent: 1, tokensPerMinute: 1_000_000 }] },
    });
    try {
      for (let i = 0; i < 40; i++) {
        const response = await post(opened.relay.url, "/v1/chat/completions", chatBody({ stream: i % 2 === 1 }), { authorization: `Bearer ${secret}` });
        assert.equal(response.status, 200, `call ${i}: ${response.status === 200 ? "" : await response.text()}`);
        await response.arrayBuffer();
      }
      // Every lease given back once the last call has ended (Redis drops a set left empty).
      assert.ok(await eventually(async () => (await admin.keys("*leases")).length === 0, 5_000), "no lease left held");
    } finally {
      await opened.stop();
      admin.disconnect();
      await server.stop();
    }
  });
});
