import assert from "node:assert/strict";
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, describe, test } from "node:test";
import { startMockServer, startRelay, TEST_KEY, type MockServer, type RelayUnderTest } from "../../support/relay-harness.ts";
import { allEntries, chatBody, errorOf, openStore, post } from "../../support/relay-calls.ts";
import { joinChunks, readChunks } from "../../support/sse-bytes.ts";
import { testKeyPrefix, testRedisUrl } from "../../support/redis.ts";
import { eventually } from "../../support/sse-bytes.ts";
import type { StorageConfig } from "../../../src/config/config-schema.ts";
import { Scrape, scrape } from "../../support/prom-scrape.ts";

const OTHER_PROJECT_KEY = "sk-renio-other-project-01";
const BROKE_KEY = "sk-renio-broke-cache-0001";
const decoder = new TextDecoder();
const ADMIN_TOKEN = "admin-token-for-cache-tests";

let mock: MockServer;
before(async () => {
  mock = await startMockServer();
});
after(() => mock.stop());

/** A relay caching every call to its models (SQLite unless `cache.store` says otherwise). */
function cachingRelay(cache: Record<string, unknown> = {}, extra: Record<string, unknown> = {}): Promise<RelayUnderTest> {
  return startRelay(mock.url, {
    server: { host: "127.0.0.1", port: 0, shutdownGraceMs: 2000, adminToken: ADMIN_TOKEN },
    providers: { mock: { type: "mock", baseUrl: mock.url, firstByteTimeoutMs: 5000 }, ant: { type: "anthropic", baseUrl: mock.url, apiKey: "sk-ant-upstream-0001" } },
    models: { "mock-gpt": { provider: "mock" }, "mock-claude": { provider: "mock" }, "translated-claude": { provider: "ant", model: "mock-claude", translate: true } },
    keys: [
      { id: "test", secret: TEST_KEY, project: "tests" },
      { id: "other", secret: OTHER_PROJECT_KEY, project: "others" },
      { id: "broke", secret: BROKE_KEY, project: "tests" },
    ],
    prices: { "mock-gpt": { input: 1, output: 2 }, "mock-claude": { input: 1, output: 2 } },
    budgets: [{ id: "broke-zero", scope: { key: "broke" }, period: "total", limit: 0 }],
    cache: { models: ["mock-gpt", "mock-claude", "translated-claude"], path: join(mkdtempSync(join(tmpdir(), "renio-cache-")), "cache.db"), ...cache },
    ...extra,
  });
}

/** Calls twice; the two answers' bodies as the client read them (chunk by chunk), their cache headers, and the provider's count between. */
async function twice(relay: RelayUnderTest, path: string, body: Record<string, unknown>, headers: Record<string, string> = {}) {
  const results = [];
  for (let i = 0; i < 2; i++) {
    const before = mock.mock.stats().received;
    const response = await post(relay.url, path, body, headers);
    assert.equal(response.status, 200, await response.clone().text());
    const chunks = await readChunks(response);
    results.push({ cache: response.headers.get("x-renio-cache"), type: response.headers.get("content-type"), chunks: chunks.map((chunk) => decoder.decode(chunk.bytes)), sent: mock.mock.stats().received - before });
    // The miss is stored once its answer has ended and settled.
    if (i === 0) await eventually(() => true);
  }
  return results;
}

describe("the response cache (SQLite)", () => {
  let relay: RelayUnderTest;
  before(async () => {
    relay = await cachingRelay();
  });
  after(() => relay.stop());

  const cases = [
    { name: "OpenAI JSON", path: "/v1/chat/completions", body: chatBody({ messages: [{ role: "user", content: "json openai" }] }) },
    { name: "OpenAI stream", path: "/v1/chat/completions", body: chatBody({ stream: true, stream_options: { include_usage: true }, messages: [{ role: "user", content: "stream openai" }] }) },
    { name: "Anthropic JSON", path: "/v1/messages", body: { model: "mock-claude", max_tokens: 64, messages: [{ role: "user", content: "json anthropic" }] } },
    { name: "Anthropic stream", path: "/v1/messages", body: { model: "mock-claude", max_tokens: 64, stream: true, messages: [{ role: "user", content: "stream anthropic" }] } },
    { name: "OpenAI stream translated to Anthropic", path: "/v1/chat/completions", body: chatBody({ model: "translated-claude", stream: true, stream_options: { include_usage: true }, messages: [{ role: "user", content: "translated" }] }) },
    { name: "OpenAI JSON translated to Anthropic", path: "/v1/chat/completions", body: chatBody({ model: "translated-claude", messages: [{ role: "user", content: "translated json" }] }) },
  ];
  for (const { name, path, body } of cases) {
    test(`${name}: the second call is served from the cache, the same bytes in the same chunks, the provider not called`, async () => {
      const [first, second] = await twice(relay, path, body);
      assert.equal(first!.cache, "miss");
      assert.equal(first!.sent, 1);
      assert.equal(second!.cache, "hit");
      assert.equal(second!.sent, 0, "a hit never reaches the provider");
      assert.equal(second!.type, first!.type);
      assert.equal(second!.chunks.join(""), first!.chunks.join(""), "the same bytes (a stream's events and its final usage chunk included)");
      if (body.stream === true) assert.match(second!.chunks.join(""), /"usage"|message_delta/);
    });
  }

  test("key order and spacing do not matter; another project never sees the entry", async () => {
    const body = chatBody({ messages: [{ role: "user", content: "canonical" }] });
    await twice(relay, "/v1/chat/completions", body);
    const reordered = `{ "max_tokens": 100, "messages": [{"content": "canonical", "role": "user"}], "model": "mock-gpt" }`;
    const same = await post(relay.url, "/v1/chat/completions", reordered);
    assert.equal(same.headers.get("x-renio-cache"), "hit");
    await same.body?.cancel();
    const other = await post(relay.url, "/v1/chat/completions", body, { authorization: `Bearer ${OTHER_PROJECT_KEY}` });
    assert.equal(other.headers.get("x-renio-cache"), "miss", "the namespace is the project");
    await other.body?.cancel();
  });

  test("Cache-Control no-cache skips the lookup, no-store and x-renio-cache: bypass skip the cache", async () => {
    const body = chatBody({ messages: [{ role: "user", content: "controls" }] });
    await twice(relay, "/v1/chat/completions", body);
    for (const [headers, expected] of [[{ "cache-control": "no-cache" }, "miss"], [{ "cache-control": "no-store" }, "bypass"], [{ "x-renio-cache": "bypass" }, "bypass"]] as const) {
      const before = mock.mock.stats().received;
      const response = await post(relay.url, "/v1/chat/completions", body, headers);
      assert.equal(response.headers.get("x-renio-cache"), expected, JSON.stringify(headers));
      await response.text();
      assert.equal(mock.mock.stats().received - before, 1);
    }
  });

  test("a model not opted in is bypassed unless the request asks with x-renio-cache: use", async () => {
    const body = { model: "mock-claude", max_tokens: 64, messages: [{ role: "user", content: "opt" }] };
    const relayNoModels = await cachingRelay({ models: [] });
    try {
      const plain = await post(relayNoModels.url, "/v1/messages", body);
      assert.equal(plain.headers.get("x-renio-cache"), "bypass");
      await plain.text();
      const [first, second] = await twice(relayNoModels, "/v1/messages", body, { "x-renio-cache": "use" });
      assert.deepEqual([first!.cache, second!.cache], ["miss", "hit"]);
    } finally {
      await relayNoModels.stop();
    }
  });

  test("an answer larger than maxEntryBytes is not stored (it still reaches the client whole)", async () => {
    const small = await cachingRelay({ maxEntryBytes: 64 });
    try {
      const [first, second] = await twice(small, "/v1/chat/completions", chatBody({ messages: [{ role: "user", content: "too big" }] }));
      assert.deepEqual([first!.cache, second!.cache], ["miss", "miss"]);
      assert.equal(second!.sent, 1);
      assert.ok(JSON.parse(second!.chunks.join("")).choices[0].message.content.length > 0);
    } finally {
      await small.stop();
    }
  });

  test("a hit under a budget with nothing left is served and journaled cache_hit at cost 0", async () => {
    const body = chatBody({ messages: [{ role: "user", content: "broke" }] });
    await twice(relay, "/v1/chat/completions", body);
    const refusedFresh = await post(relay.url, "/v1/chat/completions", chatBody({ messages: [{ role: "user", content: "not cached" }] }), { authorization: `Bearer ${BROKE_KEY}` });
    assert.equal(refusedFresh.status, 429);
    assert.equal((await errorOf(refusedFresh)).code, "budget_exceeded", "the budget has nothing left for a call that is sent");
    const hit = await post(relay.url, "/v1/chat/completions", body, { authorization: `Bearer ${BROKE_KEY}` });
    assert.equal(hit.status, 200);
    assert.equal(hit.headers.get("x-renio-cache"), "hit");
    const id = hit.headers.get("x-request-id")!;
    await hit.text();
    const store = await openStore(relay.config.storage as StorageConfig);
    try {
      let entry;
      assert.ok(await eventually(async () => (entry = (await allEntries(store)).find((e) => e.id === id))?.outcome === "cache_hit", 5000));
      assert.equal(entry!.cost, 0);
      assert.ok((entry!.outputTokens ?? 0) > 0, "the original usage is recorded");
      const original = (await allEntries(store)).find((e) => e.outcome === "ok" && e.keyId === "test" && e.requestBody === null && e.outputTokens === entry!.outputTokens && e.cost !== null && e.cost > 0);
      assert.ok(original !== undefined && entry!.savedCost === original.cost, `saved ${entry!.savedCost}: the original call's cost`);
      const spend = await store.journalSpend({});
      const broke = spend.filter((part) => part.keyId === "broke");
      assert.equal(broke.reduce((n, part) => n + part.cacheHits, 0), 1, "the report counts the hit");
      assert.equal(broke.reduce((n, part) => n + part.calls, 0), 0, "…and not as a call sent to a provider");
      assert.equal(broke.reduce((n, part) => n + part.savedCost, 0), entry!.savedCost);
      const overview = (await (await fetch(`${relay.url}/admin/dashboard/overview`, { headers: { authorization: `Bearer ${ADMIN_TOKEN}` } })).json()) as { today: { cacheHits: number; savedCost: number } };
      assert.ok(overview.today.cacheHits >= 1 && overview.today.savedCost >= entry!.savedCost!, "the dashboard shows hits and savings");
      const metrics = new Scrape((await scrape(relay.url, ADMIN_TOKEN)).text);
      assert.ok(metrics.sum("renio_cache_lookups_total", { result: "hit" }) >= 1);
      assert.ok(metrics.sum("renio_cache_hit_ratio") > 0);
      assert.ok(metrics.sum("renio_cache_saved_cost") >= entry!.savedCost!);
    } finally {
      await store.close();
    }
  });

  test("an error and a cut stream are never stored", async () => {
    for (const [body, fault] of [[chatBody({ messages: [{ role: "user", content: "fails" }] }), "status=500"], [chatBody({ stream: true, messages: [{ role: "user", content: "cut" }] }), "cut=2"]] as const) {
      const first = await post(relay.url, "/v1/chat/completions", body, { "x-mock-fault": fault });
      await first.text().catch(() => "");
      const second = await post(relay.url, "/v1/chat/completions", body);
      await second.text();
      assert.equal(second.headers.get("x-renio-cache"), "miss", fault);
    }
  });
});

describe("the response cache on Redis", () => {
  test("two relays see each other's entries; an entry expires after its TTL", async () => {
    const redis = { url: await testRedisUrl(), keyPrefix: testKeyPrefix() };
    const [a, b] = [await cachingRelay({ store: "redis", ttlSeconds: 1 }, { redis }), await cachingRelay({ store: "redis", ttlSeconds: 1 }, { redis })];
    try {
      const body = chatBody({ stream: true, stream_options: { include_usage: true }, messages: [{ role: "user", content: "shared" }] });
      const first = await post(a!.url, "/v1/chat/completions", body);
      const bytes = joinChunks(await readChunks(first));
      assert.equal(first.headers.get("x-renio-cache"), "miss");
      let status = "";
      assert.ok(await eventually(async () => {
        const response = await post(b!.url, "/v1/chat/completions", body);
        status = response.headers.get("x-renio-cache") ?? "";
        const got = joinChunks(await readChunks(response));
        if (status === "hit") assert.deepEqual(got, bytes);
        return status === "hit";
      }, 900, 20), `relay b did not hit a's entry (${status})`);
      assert.ok(await eventually(async () => {
        const response = await post(b!.url, "/v1/chat/completions", body);
        await response.text();
        return response.headers.get("x-renio-cache") === "miss";
      }, 5000, 200), "the entry expired after ttlSeconds");
    } finally {
      await Promise.all([a!.stop(), b!.stop()]);
    }
  });
});
