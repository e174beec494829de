import assert from "node:assert/strict";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, describe, test } from "node:test";
import { validateConfig } from "../../../src/config/config-load.ts";
import { BUILTIN_PRICES } from "../../../src/pricing/prices-builtin.ts";
import { reservationFor } from "../../../src/pricing/reservation.ts";
import { currentRuntime } from "../../../src/runtime/current-runtime.ts";
import { createSocketFetch } from "../../../src/upstream/socket-fetch.ts";
import { admin, ADMIN_TOKEN } from "../../support/admin-api.ts";
import { admittedOrRefused, assertNoOvershoot, type StrictCeiling } from "../../support/budget-ceiling.ts";
import { Scrape, scrape } from "../../support/prom-scrape.ts";
import { chatBody, finishedEntries, mockStats, openStore } from "../../support/relay-calls.ts";
import { startMockServer, startRelay, TEST_KEY, type MockServer, type RelayUnderTest } from "../../support/relay-harness.ts";
import { eventually } from "../../support/sse-bytes.ts";

/**
 * `server.eventLoops: 2`: two listeners on one port, the kernel spreading connections over them.
 * Every call here opens a connection of its own (the socket client keeps none idle), so both
 * loops serve some; each test checks on /metrics that the worker loop (loop 1) did, and that
 * the promises held for its calls: the owner loop's journal, budget book and rate limits.
 */

const LOOPS = 2;
const METRICS_TOKEN = "metrics-token-for-tests-0123";
const runtime = await currentRuntime();
const skip = runtime.loopWorker === undefined ? "this runtime's server cannot share its port: it serves on one event loop" : false;
const decoder = new TextDecoder();
const TIMEOUT = { timeout: 60_000 };

let mock: MockServer;
before(async () => {
  mock = await startMockServer({ chunks: 6, chunkIntervalMs: 5 });
});
after(() => mock.stop());

/** A fresh connection per call, so the kernel places each on a loop of its choosing. */
const client = createSocketFetch({ maxIdlePerOrigin: 0 });

function call(url: string, body: Record<string, unknown>, headers: Record<string, string> = {}, signal?: AbortSignal): Promise<Response> {
  return client(`${url}/v1/chat/completions`, {
    method: "POST",
    headers: { authorization: `Bearer ${TEST_KEY}`, "content-type": "application/json", ...headers },
    body: JSON.stringify(body),
    ...(signal === undefined ? {} : { signal }),
  });
}

function serverConfig(extra: Record<string, unknown> = {}): Record<string, unknown> {
  return { host: "127.0.0.1", port: 0, shutdownGraceMs: 5000, eventLoops: LOOPS, metricsToken: METRICS_TOKEN, adminToken: ADMIN_TOKEN, ...extra };
}

/** Model calls each loop served, from /metrics. */
async function callsByLoop(url: string): Promise<Map<string, number>> {
  const page = await scrape(url, METRICS_TOKEN);
  assert.equal(page.status, 200);
  return new Map(new Scrape(page.text).metrics("renio_event_loop_calls_total").map((metric) => [metric.labels!.loop!, Number(metric.value)]));
}

/** Both loops served calls, and together `total`. */
async function assertBothLoopsServed(url: string, total: number): Promise<void> {
  const byLoop = await callsByLoop(url);
  assert.deepEqual([...byLoop.keys()].sort(), ["0", "1"]);
  assert.ok(byLoop.get("1")! > 0, `the worker loop served calls: ${JSON.stringify([...byLoop])}`);
  assert.ok(byLoop.get("0")! > 0, `the owner loop served calls: ${JSON.stringify([...byLoop])}`);
  assert.equal(byLoop.get("0")! + byLoop.get("1")!, total);
}

describe("server.eventLoops: 2", { skip }, () => {
  test("streams on every loop settle their usage in the one journal, and /metrics counts them all", TIMEOUT, async () => {
    const relay = await startRelay(mock.url, { server: serverConfig() });
    const store = await openStore(relay.config.storage);
    try {
      const CALLS = 40;
      const ids = await Promise.all(
        Array.from({ length: CALLS }, async () => {
          const response = await call(relay.url, chatBody({ stream: true }));
          assert.equal(response.status, 200);
          assert.match(await response.text(), /data: \[DONE\]/);
          return response.headers.get("x-request-id")!;
        }),
      );
      const entries = await finishedEntries(store, ids, 10_000);
      for (const id of ids) {
        const entry = entries.get(id)!;
        assert.equal(entry.outcome, "ok");
        assert.ok(entry.inputTokens! > 0 && entry.outputTokens! > 0, `call ${id} settled its usage`);
        assert.ok(entry.cost! > 0);
      }
      await assertBothLoopsServed(relay.url, CALLS);
      const page = new Scrape((await scrape(relay.url, METRICS_TOKEN)).text);
      assert.equal(page.sum("renio_calls_total", { outcome: "ok" }), CALLS, "the calls of both loops in one count");
      assert.equal(page.sum("renio_tokens_total", { type: "output" }), [...entries.values()].filter((e) => ids.includes(e.id)).reduce((sum, e) => sum + e.outputTokens!, 0));
      assert.deepEqual(page.histogram("renio_event_loop_lag_seconds").map((series) => series.labels.loop).sort(), ["0", "1"], "a lag histogram per loop");
      assert.equal(page.sum("renio_event_loops"), LOOPS);
    } finally {
      await store.close();
      await relay.stop();
    }
  });

  test("a race of streams at a strict budget overshoots by 0, whichever loop serves them", TIMEOUT, async () => {
    const STREAMS = 300;
    const COVERED = 100;
    const body = chatBody({ max_tokens: 1000, stream: true });
    const reservation = reservationFor({ requestBytes: new TextEncoder().encode(JSON.stringify(body)).byteLength, maxOutputTokens: 1000, price: BUILTIN_PRICES["mock"]!, model: "mock-gpt" }).amount;
    const limit = Math.round(reservation * (COVERED + 0.5) * 1e6) / 1e6;
    const ceiling: StrictCeiling = { budgetId: "race", limit, reservation };
    const relay = await startRelay(mock.url, { server: serverConfig(), budgets: [{ id: "race", scope: "total", period: "total", limit, mode: "strict" }] });
    const store = await openStore(relay.config.storage);
    try {
      const sent = (await mockStats(mock.url)).received;
      // Every stream is in flight at once: the mock holds each a second before its first byte.
      const results = await Promise.all(Array.from({ length: STREAMS }, async () => admittedOrRefused(await call(relay.url, body, { "x-mock-fault": "delay=1000" }), ceiling)));
      const accepted = results.filter((result) => result.accepted).map((result) => result.id);
      assert.equal(accepted.length, COVERED, "exactly the calls that fit were admitted");
      assert.equal((await mockStats(mock.url)).received - sent, COVERED, "only admitted calls reached the provider");
      await assertNoOvershoot(store, accepted, ceiling);
      await assertBothLoopsServed(relay.url, STREAMS);
    } finally {
      await store.close();
      await relay.stop();
    }
  });

  test("clients that leave mid-stream on any loop are settled as client_aborted", TIMEOUT, async () => {
    const relay = await startRelay(mock.url, { server: serverConfig() });
    const store = await openStore(relay.config.storage);
    try {
      const CALLS = 30;
      const ids = await Promise.all(
        Array.from({ length: CALLS }, async () => {
          const abort = new AbortController();
          const response = await call(relay.url, chatBody({ stream: true }), { "x-mock-fault": "slow=200" }, abort.signal);
          assert.equal(response.status, 200);
          const reader = response.body!.getReader();
          assert.ok(!(await reader.read()).done, "the stream started");
          abort.abort();
          await reader.cancel().catch(() => undefined);
          return response.headers.get("x-request-id")!;
        }),
      );
      const entries = await finishedEntries(store, ids, 10_000);
      for (const id of ids) assert.equal(entries.get(id)!.outcome, "client_aborted", `call ${id}`);
      await assertBothLoopsServed(relay.url, CALLS);
      const page = new Scrape((await scrape(relay.url, METRICS_TOKEN)).text);
      assert.equal(page.sum("renio_in_flight_calls"), 0, "no call is left in flight on any loop");
      assert.equal(page.sum("renio_concurrent_calls"), 0, "every loop gave its slots back");
    } finally {
      await store.close();
      await relay.stop();
    }
  });

  test("rate limits are one bucket for every loop", TIMEOUT, async () => {
    const relay = await startRelay(mock.url, { server: serverConfig(), rateLimits: [{ scope: { key: "test" }, requestsPerMinute: 5 }] });
    try {
      const CALLS = 30;
      const statuses = await Promise.all(
        Array.from({ length: CALLS }, async () => {
          const response = await call(relay.url, chatBody());
          await response.arrayBuffer();
          return response.status;
        }),
      );
      assert.equal(statuses.filter((status) => status === 200).length, 5, "five calls a minute, whichever loop they reach");
      assert.equal(statuses.filter((status) => status === 429).length, CALLS - 5);
      await assertBothLoopsServed(relay.url, CALLS);
    } finally {
      await relay.stop();
    }
  });

  test("a reload and a stored key reach every loop; admin routes answer on every loop", TIMEOUT, async () => {
    const NEW_KEY = "sk-renio-reloaded-key-0002";
    const raw = (keys: unknown[]) => ({
      server: serverConfig(),
      storage: { type: "sqlite", path: "" },
      providers: { mock: { type: "mock", baseUrl: mock.url } },
      models: { "mock-gpt": { provider: "mock" } },
      keys,
    });
    let next = raw([{ id: "reloaded", secret: NEW_KEY, project: "tests" }]);
    const relay: RelayUnderTest = await startRelay(mock.url, { server: serverConfig() }, { loadConfig: () => Promise.resolve(validateConfig({ ...next, storage: relay.config.storage }, {})) });
    try {
      const outcome = await relay.service.reload("test");
      assert.equal(outcome.reloaded, true);
      const CALLS = 20;
      const answers = await Promise.all(Array.from({ length: CALLS }, () => call(relay.url, chatBody(), { authorization: `Bearer ${NEW_KEY}` })));
      assert.deepEqual(await Promise.all(answers.map(async (response) => [response.status, (await response.arrayBuffer()).byteLength > 0][0])), Array(CALLS).fill(200), "the reloaded key works on every loop");
      const old = await Promise.all(Array.from({ length: CALLS }, () => call(relay.url, chatBody())));
      assert.deepEqual(await Promise.all(old.map(async (response) => [response.status, await response.arrayBuffer()][0])), Array(CALLS).fill(401), "the removed key is refused on every loop");

      // A key created through the admin API (on whichever loop the request reaches) works on every loop at once.
      next = raw([]);
      const created = await admin<{ secret: string }>(relay.url, "POST", "/keys", { id: "stored", project: "tests" });
      assert.equal(created.status, 201, JSON.stringify(created.body));
      const stored = await Promise.all(Array.from({ length: CALLS }, () => call(relay.url, chatBody(), { authorization: `Bearer ${created.body.secret}` })));
      assert.deepEqual(await Promise.all(stored.map(async (response) => [response.status, await response.arrayBuffer()][0])), Array(CALLS).fill(200), "the stored key works on every loop");
      await assertBothLoopsServed(relay.url, CALLS * 3);
    } finally {
      await relay.stop();
    }
  });

  test("a graceful shutdown drains every loop: open streams run to their end and settle", TIMEOUT, async () => {
    const relay = await startRelay(mock.url, { server: serverConfig() });
    const store = await openStore(relay.config.storage);
    let shut = false;
    try {
      const STREAMS = 20;
      const streams = await Promise.all(
        Array.from({ length: STREAMS }, async () => {
          const response = await call(relay.url, chatBody({ stream: true }), { "x-mock-fault": "slow=100" });
          assert.equal(response.status, 200);
          const reader = response.body!.getReader();
          const first = await reader.read();
          const rest = (async () => {
            let text = decoder.decode(first.value, { stream: true });
            for (let read = await reader.read(); !read.done; read = await reader.read()) text += decoder.decode(read.value, { stream: true });
            return text;
          })();
          return { id: response.headers.get("x-request-id")!, rest };
        }),
      );
      const page = new Scrape((await scrape(relay.url, METRICS_TOKEN)).text);
      assert.equal(page.sum("renio_in_flight_calls"), STREAMS, "the calls in flight on both loops");
      shut = true;
      await relay.service.shutdown();
      for (const text of await Promise.all(streams.map((stream) => stream.rest))) assert.match(text, /data: \[DONE\]/);
      const entries = await finishedEntries(store, streams.map((stream) => stream.id));
      for (const stream of streams) assert.equal(entries.get(stream.id)!.outcome, "ok");
    } finally {
      await store.close();
      if (shut) rmSync(relay.dir, { recursive: true, force: true });
      else await relay.stop();
    }
  });
});

describe("server.eventLoops: 2 with the response cache", { skip }, () => {
  test("an answer stored through either loop is a hit on both, never sent again, and /metrics sums every loop's cache counts", TIMEOUT, async () => {
    const cacheDir = mkdtempSync(join(tmpdir(), "renio-loops-cache-"));
    const relay = await startRelay(mock.url, { server: serverConfig(), cache: { models: ["mock-gpt"], path: join(cacheDir, "cache.db") } });
    try {
      const body = chatBody({ messages: [{ role: "user", content: "one answer for every loop" }] });
      const first = await call(relay.url, body);
      assert.equal(first.status, 200);
      assert.equal(first.headers.get("x-renio-cache"), "miss");
      const answer = await first.text();
      // The miss is stored once its answer has ended: /metrics shows it stored, whichever loop served it.
      const stored = async () => new Scrape((await scrape(relay.url, METRICS_TOKEN)).text).sum("renio_cache_stored_total") === 1;
      assert.ok(await eventually(stored, 10_000), "the first answer was stored");
      const sent = (await mockStats(mock.url)).received;
      const HITS = 30;
      const hits = await Promise.all(
        Array.from({ length: HITS }, async () => {
          const response = await call(relay.url, body);
          assert.equal(response.status, 200);
          assert.equal(response.headers.get("x-renio-cache"), "hit");
          return response.text();
        }),
      );
      for (const text of hits) assert.equal(text, answer, "a hit answers the stored bytes");
      assert.equal((await mockStats(mock.url)).received - sent, 0, "no hit reached the provider");
      await assertBothLoopsServed(relay.url, HITS + 1);
      const page = new Scrape((await scrape(relay.url, METRICS_TOKEN)).text);
      assert.equal(page.sum("renio_cache_lookups_total", { result: "hit" }), HITS);
      assert.equal(page.sum("renio_cache_lookups_total", { result: "miss" }), 1);
      assert.equal(page.sum("renio_cache_stored_total"), 1);
    } finally {
      await relay.stop();
      rmSync(cacheDir, { recursive: true, force: true });
    }
  });
});

describe("server.eventLoops where the server cannot share its port", { skip: skip === false ? "this runtime serves on several loops" : false }, () => {
  test("the relay serves on one loop", TIMEOUT, async () => {
    const relay = await startRelay(mock.url, { server: serverConfig() });
    try {
      assert.equal(relay.service.eventLoops, 1);
      const response = await call(relay.url, chatBody());
      assert.equal(response.status, 200);
      await response.arrayBuffer();
      assert.deepEqual([...(await callsByLoop(relay.url))], [["0", 1]]);
    } finally {
      await relay.stop();
    }
  });
});
