import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import { Scrape, scrape } from "../../support/prom-scrape.ts";
import { allEntries, chatBody, errorOf, mockStats, post } from "../../support/relay-calls.ts";
import { eventually } from "../../support/sse-bytes.ts";
import { startMockRelay, type MockRelay } from "../../support/with-relay.ts";

/** server.maxConcurrentCalls, maxQueuedCalls and queueTimeoutMs: Renio's own bound on the calls it serves at once, seen on /metrics. */

const METRICS_TOKEN = "metrics-token-for-call-slots";
/** Holds a call at the mock long enough for the others to meet the limit. */
const HELD = { "x-mock-fault": "delay=1500" };

async function slotGauges(url: string): Promise<Record<string, number>> {
  const metrics = new Scrape((await scrape(url, METRICS_TOKEN)).text);
  const names = ["renio_concurrent_calls", "renio_concurrent_calls_limit", "renio_queued_calls", "renio_queued_calls_limit"];
  return Object.fromEntries(names.map((name) => [name, metrics.sum(name)]));
}

describe("at the concurrent-call limit, with a queue", () => {
  let relay: MockRelay;
  before(async () => {
    relay = await startMockRelay({ config: { server: { host: "127.0.0.1", port: 0, shutdownGraceMs: 2000, metricsToken: METRICS_TOKEN, maxConcurrentCalls: 2, maxQueuedCalls: 1, queueTimeoutMs: 5000 } } });
  });
  after(() => relay.stop());

  test("a call waits in the queue (seen on /metrics) and is served once a slot frees; one more than the queue holds gets 503 overloaded with retry-after", async () => {
    const url = relay.relay.url;
    const received = (await mockStats(relay.mock.url)).received;
    const held = [post(url, "/v1/chat/completions", chatBody(), HELD), post(url, "/v1/chat/completions", chatBody(), HELD)];
    assert.ok(await eventually(async () => (await mockStats(relay.mock.url)).received === received + 2), "two calls hold both slots");
    const queued = post(url, "/v1/chat/completions", chatBody());
    assert.ok(await eventually(async () => (await slotGauges(url)).renio_queued_calls === 1), "the third call waits");
    assert.deepEqual(await slotGauges(url), { renio_concurrent_calls: 2, renio_concurrent_calls_limit: 2, renio_queued_calls: 1, renio_queued_calls_limit: 1 });

    const refused = await post(url, "/v1/chat/completions", chatBody());
    assert.equal(refused.status, 503);
    assert.equal(refused.headers.get("retry-after"), "1");
    const error = await errorOf(refused);
    assert.equal(error.code, "overloaded");
    assert.match(error.message, /limit of 2 concurrent calls \(server\.maxConcurrentCalls\) and 1 calls wait for one \(server\.maxQueuedCalls\)/);
    // Anthropic's callers get Anthropic's envelope.
    const anthropic = await post(url, "/v1/messages", { model: "mock-claude", max_tokens: 10, messages: [{ role: "user", content: "hi" }] });
    assert.equal(anthropic.status, 503);
    const body = (await anthropic.json()) as { type: string; error: { type: string } };
    assert.deepEqual([body.type, body.error.type], ["error", "overloaded_error"]);

    const answers = await Promise.all([...held, queued]);
    assert.deepEqual(answers.map((answer) => answer.status), [200, 200, 200], "the waiting call was served, not refused");
    await Promise.all(answers.map((answer) => answer.arrayBuffer()));
    assert.ok(await eventually(async () => (await slotGauges(url)).renio_concurrent_calls === 0), "every slot was given back");
    const entries = await allEntries(relay.store);
    assert.equal(entries.filter((entry) => entry.errorCode === "overloaded").length, 2, "both refusals are journaled");
  });
});

describe("at the concurrent-call limit, the wait is bounded", () => {
  let relay: MockRelay;
  before(async () => {
    relay = await startMockRelay({ config: { server: { host: "127.0.0.1", port: 0, shutdownGraceMs: 2000, maxConcurrentCalls: 1, maxQueuedCalls: 10, queueTimeoutMs: 150 } } });
  });
  after(() => relay.stop());

  test("a call that finds no free slot within queueTimeoutMs gets 503 overloaded saying so", async () => {
    const url = relay.relay.url;
    const received = (await mockStats(relay.mock.url)).received;
    const held = post(url, "/v1/chat/completions", chatBody(), HELD);
    assert.ok(await eventually(async () => (await mockStats(relay.mock.url)).received === received + 1));
    const refused = await post(url, "/v1/chat/completions", chatBody());
    assert.equal(refused.status, 503);
    assert.equal(refused.headers.get("retry-after"), "1");
    assert.match((await errorOf(refused)).message, /none came free within 150 ms \(server\.queueTimeoutMs\)/);
    assert.equal((await held).status, 200);
    await (await held).arrayBuffer();
    // The slot is free again: the next call is served at once.
    const next = await post(url, "/v1/chat/completions", chatBody());
    assert.equal(next.status, 200);
    await next.arrayBuffer();
  });
});
