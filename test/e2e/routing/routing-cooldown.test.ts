import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import OpenAI, { APIError } from "openai";
import type { JournalEntry } from "../../../src/shared/journal-records.ts";
import { admin, ADMIN_TOKEN } from "../../support/admin-api.ts";
import { startMockTargets, type MockTargets } from "../../support/mock-targets.ts";
import { Scrape } from "../../support/prom-scrape.ts";
import { finishedEntries, openStore } from "../../support/relay-calls.ts";
import { startRelay, TEST_KEY, type RelayUnderTest } from "../../support/relay-harness.ts";
import type { Store } from "../../../src/storage/store.ts";

/**
 * Cooldowns end to end, on a clock the test moves (no sleeps): model `pool` prefers target `a`
 * (priority 1) over `b`; two failures within a minute cool a target down for 30 s, then one
 * call probes it.
 */

const T0 = Date.UTC(2026, 11, 4, 9, 0, 0);
let now = T0;
let targets: MockTargets;
let relay: RelayUnderTest;
let store: Store;
let openai: OpenAI;

interface ListedTarget {
  provider: string;
  upstreamModel: string;
  models: string[];
  state: string;
  recentFailures: number;
  cooldownUntil: string | null;
  lastError: string | null;
}

before(async () => {
  targets = await startMockTargets(["a", "b"]);
  relay = await startRelay(targets.servers.a!.url, {
    server: { host: "127.0.0.1", port: 0, shutdownGraceMs: 2000, adminToken: ADMIN_TOKEN },
    providers: targets.providers(),
    models: { pool: { targets: [{ provider: "a", model: "mock-gpt", priority: 1 }, { provider: "b", model: "mock-gpt" }] } },
    routing: { cooldown: { failures: 2, windowMs: 60_000, cooldownMs: 30_000 } },
  }, { clock: () => now });
  store = await openStore(relay.config.storage);
  openai = new OpenAI({ apiKey: TEST_KEY, baseURL: `${relay.url}/v1`, maxRetries: 0, timeout: 20_000 });
});

after(async () => {
  await store?.close();
  await relay?.stop();
  await targets?.stop();
});

async function call(): Promise<JournalEntry> {
  const { response } = await openai.chat.completions.create({ model: "pool", messages: [{ role: "user", content: "hi" }], max_tokens: 10 }).withResponse();
  const id = response.headers.get("x-request-id")!;
  return (await finishedEntries(store, [id])).get(id)!;
}

async function listed(): Promise<Map<string, ListedTarget>> {
  const answer = await admin<{ object: string; data: ListedTarget[] }>(relay.url, "GET", "/targets");
  assert.equal(answer.status, 200);
  assert.equal(answer.body.object, "list");
  return new Map(answer.body.data.map((target) => [target.provider, target]));
}

async function coolingGauge(provider: string): Promise<number> {
  const page = await fetch(`${relay.url}/metrics`, { headers: { authorization: `Bearer ${ADMIN_TOKEN}` } });
  assert.equal(page.status, 200);
  return new Scrape(await page.text()).sum("renio_target_cooling_down", { provider, upstream_model: "mock-gpt" });
}

async function readyz(): Promise<{ status: number; body: Record<string, unknown> }> {
  const response = await fetch(`${relay.url}/readyz`);
  return { status: response.status, body: (await response.json()) as Record<string, unknown> };
}

const providersOf = (entry: JournalEntry) => (entry.attempts ?? []).map((a) => `${a.provider}:${a.errorCode ?? a.status}`);

describe("cooldowns: a failing target is skipped, then probed, then used again", () => {
  test("two failures cool `a` down: calls go straight to `b`, /admin/targets and /metrics say so", async () => {
    await targets.script("a", { status: 503 });
    assert.deepEqual(providersOf(await call()), ["a:upstream_503", "b:200"]);
    assert.equal((await listed()).get("a")!.state, "closed");
    now += 1000;
    assert.deepEqual(providersOf(await call()), ["a:upstream_503", "b:200"]);
    const a = (await listed()).get("a")!;
    assert.equal(a.state, "open");
    assert.equal(a.cooldownUntil, new Date(now + 30_000).toISOString());
    assert.equal(a.lastError, "upstream_503");
    assert.deepEqual(a.models, ["pool"]);
    assert.equal(await coolingGauge("a"), 1);
    assert.equal(await coolingGauge("b"), 0);

    // While `a` cools down it gets nothing.
    now += 10_000;
    assert.deepEqual(providersOf(await call()), ["b:200"]);
    assert.equal(await targets.received("a"), 2);
    assert.deepEqual((await readyz()).body, { status: "ready", storage: "ok" });
  });

  test("every target cooling down: /readyz names the model and calls are refused without being sent", async () => {
    await targets.script("b", { status: 503 });
    for (let i = 0; i < 2; i++) {
      const error = await openai.chat.completions.create({ model: "pool", messages: [{ role: "user", content: "hi" }], max_tokens: 10 }).catch((e: unknown) => e);
      assert.ok(error instanceof APIError && error.status === 503);
    }
    const ready = await readyz();
    assert.equal(ready.status, 200, "the relay itself stays ready");
    assert.deepEqual(ready.body.cooling_down, ["pool"]);
    const sent = [await targets.received("a"), await targets.received("b")];
    const refused = await openai.chat.completions.create({ model: "pool", messages: [{ role: "user", content: "hi" }], max_tokens: 10 }).catch((e: unknown) => e);
    assert.ok(refused instanceof APIError);
    assert.equal(refused.status, 503);
    assert.equal((refused.error as { code?: string }).code, "targets_cooling_down");
    assert.match(refused.message, /Every target of `pool` is cooling down/);
    assert.ok(Number(refused.headers?.get("retry-after")) > 0);
    assert.deepEqual([await targets.received("a"), await targets.received("b")], sent, "nothing was sent");
    const entry = (await finishedEntries(store, [refused.requestID!])).get(refused.requestID!)!;
    assert.equal(entry.outcome, "refused");
    assert.equal(entry.errorCode, "targets_cooling_down");
  });

  test("after the cool-down one call probes `a`; its answer closes the circuit and `a` serves again", async () => {
    await targets.reset();
    now += 30_000;
    const a = (await listed()).get("a")!;
    assert.equal(a.state, "half-open");
    assert.deepEqual(providersOf(await call()), ["a:200"]);
    assert.equal((await listed()).get("a")!.state, "closed");
    assert.deepEqual(providersOf(await call()), ["a:200"]);
    assert.equal(await coolingGauge("a"), 0);
    assert.equal((await readyz()).body.cooling_down, undefined);
  });

  test("a probe that fails cools the target down again at once", async () => {
    await targets.script("a", { status: 503 });
    await call();
    now += 1;
    await call();
    assert.equal((await listed()).get("a")!.state, "open");
    now += 30_000;
    assert.deepEqual(providersOf(await call()), ["a:upstream_503", "b:200"]);
    const again = (await listed()).get("a")!;
    assert.equal(again.state, "open");
    assert.equal(again.cooldownUntil, new Date(now + 30_000).toISOString());
  });
});
