import assert from "node:assert/strict";
import { resolve } from "node:path";
import { after, before, describe, test } from "node:test";
import { costOf } from "../../../src/pricing/cost.ts";
import { BUILTIN_PRICES } from "../../../src/pricing/prices-builtin.ts";
import { admissionLogDir, readJournalLog } from "../../../src/journal/admission-log/log-segments.ts";
import type { LogRecord } from "../../../src/journal/admission-log/admission-log-record.ts";
import type { Store } from "../../../src/storage/store.ts";
import { startMockServer, startRelay, type MockServer, type RelayUnderTest } from "../../support/relay-harness.ts";
import { chatBody, errorOf, finishedEntries, mockStats, openStore, post } from "../../support/relay-calls.ts";
import { eventually, readChunks } from "../../support/sse-bytes.ts";

const POOR_KEY = "sk-renio-poor-key-0002";
let mock: MockServer;
let relay: RelayUnderTest;
let store: Store;

before(async () => {
  mock = await startMockServer();
  relay = await startRelay(mock.url, {
    keys: [
      { id: "test", secret: "sk-renio-test-key-0001", project: "tests" },
      { id: "poor", secret: POOR_KEY, project: "poor-project" },
    ],
    budgets: [
      { id: "all", scope: "total", period: "total", limit: 100 },
      { id: "poor-key", scope: { key: "poor" }, period: "month", limit: 0.000001 },
    ],
  });
  store = await openStore(relay.config.storage);
});

after(async () => {
  await store.close();
  await relay.stop();
  await mock.stop();
});

describe("write-ahead journal through the relay", () => {
  test("a JSON call: entry committed before the provider call, then completed with status, times, tokens and cost", async () => {
    const body = chatBody();
    const bytes = new TextEncoder().encode(JSON.stringify(body)).byteLength;
    const response = await post(relay.url, "/v1/chat/completions", body);
    assert.equal(response.status, 200);
    const usage = ((await response.json()) as { usage: { prompt_tokens: number; completion_tokens: number } }).usage;
    const id = response.headers.get("x-request-id")!;
    assert.ok((await mockStats(mock.url)).requestIds.includes(id), "the id sent upstream is the entry id");

    const entry = (await finishedEntries(store, [id])).get(id)!;
    assert.equal(entry.keyId, "test");
    assert.equal(entry.project, "tests");
    assert.equal(entry.route, "/v1/chat/completions");
    assert.equal(entry.model, "mock-gpt");
    assert.equal(entry.provider, "mock");
    assert.equal(entry.upstreamModel, "mock-gpt");
    assert.equal(entry.stream, false);
    assert.equal(entry.requestBytes, bytes);
    assert.match(entry.clientAddress, /127\.0\.0\.1/);
    assert.equal(entry.outcome, "ok");
    assert.equal(entry.status, 200);
    assert.ok(entry.ttfbMs !== null && entry.ttfbMs >= 0);
    assert.ok(entry.totalMs !== null && entry.totalMs >= entry.ttfbMs);
    assert.ok(entry.upstreamMs !== null && entry.upstreamMs > 0 && entry.upstreamMs <= entry.totalMs);
    assert.equal(entry.inputTokens, usage.prompt_tokens);
    assert.equal(entry.outputTokens, usage.completion_tokens);
    const price = BUILTIN_PRICES["mock"]!;
    assert.equal(entry.cost, costOf({ inputTokens: usage.prompt_tokens, cachedInputTokens: 0, outputTokens: usage.completion_tokens }, price));
    assert.ok(entry.reservedCost !== null && entry.reservedCost >= entry.cost!);
    assert.equal(entry.errorCode, null);
    assert.equal(entry.requestBody, null, "bodies are not stored by default");
  });

  test("when the provider receives a call, its entry is already in the admission log; the database shows it started while it runs", async () => {
    const before = (await mockStats(mock.url)).received;
    // The provider holds the answer far longer than the test runs; the test ends the call itself once it has looked.
    const caller = new AbortController();
    const pending = post(relay.url, "/v1/chat/completions", chatBody(), { "x-mock-fault": "delay=60000" }, caller.signal).catch((error: unknown) => error);
    const deadline = Date.now() + 3000;
    let stats = await mockStats(mock.url);
    while (stats.received === before && Date.now() < deadline) stats = await mockStats(mock.url);
    assert.equal(stats.received, before + 1, "the mock received the call");
    const id = stats.requestIds.at(-1)!;
    if (relay.config.storage.type !== "sqlite") throw new Error("this relay runs on SQLite");
    const logged = readJournalLog(admissionLogDir(resolve(relay.config.storage.path))).lines.map((line) => JSON.parse(line) as LogRecord);
    assert.ok(logged.some((record) => "admit" in record && record.admit.start.id === id && record.admit.admitted), "logged (durably) before the call was sent");
    const started = async () => (await store.listJournal({ limit: 50 })).entries.find((e) => e.id === id);
    assert.ok(await eventually(async () => (await started()) !== undefined), "applied to the database while the provider answers");
    const entry = await started();
    assert.equal(entry?.outcome, "started");
    assert.equal(entry?.finishedAt, null);
    caller.abort();
    assert.ok((await pending) instanceof Error, "the caller gave up");
    assert.equal((await finishedEntries(store, [id])).get(id)?.outcome, "client_aborted");
  });

  test("a streamed call is recorded with stream=true and completed after the last byte", async () => {
    const response = await post(relay.url, "/v1/messages", { model: "mock-claude", messages: [{ role: "user", content: "hi" }], max_tokens: 12, stream: true });
    assert.equal(response.status, 200);
    await readChunks(response);
    const id = response.headers.get("x-request-id")!;
    const entry = (await finishedEntries(store, [id])).get(id)!;
    assert.equal(entry.stream, true);
    assert.equal(entry.route, "/v1/messages");
    assert.equal(entry.model, "mock-claude");
    assert.equal(entry.outcome, "ok");
    assert.equal(entry.outputTokens, 12);
    assert.ok(entry.ttfbMs !== null && entry.totalMs !== null && entry.ttfbMs <= entry.totalMs);
  });

  const refusals = [
    { name: "bad key", path: "/v1/chat/completions", body: chatBody() as unknown, headers: { authorization: "Bearer sk-wrong-key-000000" }, status: 401, code: "invalid_api_key", keyId: null },
    { name: "bad JSON", path: "/v1/chat/completions", body: '{"model": "mock-gpt", ', headers: {}, status: 400, code: "invalid_json", keyId: "test" },
    { name: "budget", path: "/v1/chat/completions", body: chatBody() as unknown, headers: { authorization: `Bearer ${POOR_KEY}` }, status: 429, code: "budget_exceeded", keyId: "poor" },
  ] as const;
  for (const refusal of refusals) {
    test(`a call refused for ${refusal.name} is recorded and never reaches the provider`, async () => {
      const before = (await mockStats(mock.url)).received;
      const response = await post(relay.url, refusal.path, refusal.body, refusal.headers);
      assert.equal(response.status, refusal.status);
      assert.equal((await errorOf(response)).code, refusal.code);
      const id = response.headers.get("x-request-id")!;
      const entry = (await finishedEntries(store, [id])).get(id)!;
      assert.equal(entry.outcome, "refused");
      assert.equal(entry.status, refusal.status);
      assert.equal(entry.errorCode, refusal.code);
      assert.equal(entry.keyId, refusal.keyId);
      assert.equal(entry.route, refusal.path);
      assert.equal(entry.cost, null);
      assert.equal((await mockStats(mock.url)).received, before, "the mock received nothing");
    });
  }
});
