import assert from "node:assert/strict";
import process from "node:process";
import { after, before, describe, test } from "node:test";
import type { StorageConfig } from "../../../src/config/config-schema.ts";
import { BUILTIN_PRICES } from "../../../src/pricing/prices-builtin.ts";
import { reservationFor } from "../../../src/pricing/reservation.ts";
import { testPostgresUrl } from "../../support/postgres.ts";
import { admittedOrRefused, assertNoOvershoot, type StrictCeiling } from "../../support/budget-ceiling.ts";
import { startMockServer, startRelay, type MockServer } from "../../support/relay-harness.ts";
import { chatBody, errorOf, finishedEntries, mockStats, openStore, post } from "../../support/relay-calls.ts";
import { relayConfig, scratchDir, startRelayProcess, writeConfig } from "../../support/relay-process.ts";
import { pgExec } from "../../support/store-targets.ts";
import { startScriptedUpstream } from "../../support/scripted-upstream.ts";
import { withRelay } from "../../support/with-relay.ts";

const CALLS = 200;
const BODY = chatBody({ max_tokens: 1000 });
const BODY_BYTES = new TextEncoder().encode(JSON.stringify(BODY)).byteLength;
/** What each call reserves: the request's bytes as input tokens plus max_tokens, at the `mock` price. */
const RESERVATION = reservationFor({ requestBytes: BODY_BYTES, maxOutputTokens: 1000, price: BUILTIN_PRICES["mock"]!, model: "mock-gpt" }).amount;
/** Covers 50 reservations and half of a 51st. */
const LIMIT = Math.round(RESERVATION * 50.5 * 1e6) / 1e6;
const BUDGETS = [{ id: "tight", scope: "total", period: "total", limit: LIMIT, mode: "strict" }];

let mock: MockServer;

before(async () => {
  mock = await startMockServer();
});

after(async () => {
  await mock.stop();
});

const CEILING: StrictCeiling = { budgetId: "tight", limit: LIMIT, reservation: RESERVATION };

/** Fires `CALLS` concurrent calls spread over `urls`; the mock holds each for 100 ms so reservations overlap. */
async function fire(urls: readonly string[]): Promise<{ accepted: string[]; refused: number }> {
  const before = (await mockStats(mock.url)).received;
  const results = await Promise.all(
    Array.from({ length: CALLS }, async (_, i) => admittedOrRefused(await post(urls[i % urls.length]!, "/v1/chat/completions", BODY, { "x-mock-fault": "delay=100" }), CEILING)),
  );
  const accepted = results.filter((r) => r.accepted).map((r) => r.id);
  assert.equal((await mockStats(mock.url)).received - before, accepted.length, "only accepted calls reached the provider");
  return { accepted, refused: CALLS - accepted.length };
}

describe("zero overshoot: 200 concurrent calls at a budget covering about 50", () => {
  test("one relay on SQLite", async () => {
    await withRelay(mock.url, { budgets: BUDGETS }, async ({ relay, store }) => {
      const { accepted, refused } = await fire([relay.url]);
      assert.ok(refused > 0);
      await assertNoOvershoot(store, accepted, CEILING);
    });
  });

  test("two relay processes sharing one PostgreSQL", async () => {
    const base = testPostgresUrl();
    const name = `renio_overshoot_${process.pid}`;
    await pgExec(base, `create database ${name}`);
    const url = new URL(base);
    url.pathname = `/${name}`;
    const storage: StorageConfig = { type: "postgres", url: url.toString(), poolSize: 8 };
    const configPath = writeConfig(scratchDir(), relayConfig(mock.url, storage, { budgets: BUDGETS }));
    const relays = await Promise.all([startRelayProcess(configPath), startRelayProcess(configPath)]);
    const store = await openStore(storage);
    try {
      const { accepted, refused } = await fire(relays.map((r) => r.url));
      assert.ok(refused > 0);
      await assertNoOvershoot(store, accepted, CEILING);
    } finally {
      await store.close();
      for (const relay of relays) assert.equal((await relay.stop()).code, 0, relay.output());
    }
  });
});

/** A model priced in config with no known maximum output: 1 per million input, 10 per million output. */
const SHAPE_PRICE = { input: 1, cachedInput: 1, output: 10, contextWindow: 100_000 };
/** Output the scripted upstream produces when a request sets no limit (more than Renio's default reservation). */
const UNLIMITED_OUTPUT = 10_000;
/** Input tokens the scripted upstream bills for a referenced image (within the context window). */
const REFERENCED_INPUT = 90_000;

/**
 * Sends `calls` sequential calls of `body` under a strict budget of 2.5 times what the call
 * truly reserves (so the old, smaller reservation would admit a third call and overshoot), then
 * checks the settled spend stays within the limit.
 */
async function shapeHoldsCeiling(body: Record<string, unknown>, reservation: number): Promise<{ accepted: number; upstreamBodies: Record<string, unknown>[] }> {
  const upstream = await startScriptedUpstream(UNLIMITED_OUTPUT, REFERENCED_INPUT);
  const limit = Math.round(reservation * 2.5 * 1e6) / 1e6;
  const relay = await startRelay(upstream.url, {
    models: { "shape-model": { provider: "mock" } },
    prices: { "shape-model": SHAPE_PRICE },
    budgets: [{ id: "shape", scope: "total", period: "total", limit, mode: "strict" }],
  });
  const store = await openStore(relay.config.storage);
  try {
    const ids: string[] = [];
    for (let i = 0; i < 5; i++) {
      const response = await post(relay.url, "/v1/chat/completions", body);
      if (response.status === 200) {
        ids.push(response.headers.get("x-request-id")!);
        await response.arrayBuffer();
      } else assert.equal((await errorOf(response)).code, "budget_exceeded");
    }
    await finishedEntries(store, ids, 10_000);
    const [usage] = await store.budgetUsage([{ budgetId: "shape", period: "total" }]);
    assert.ok(ids.length >= 2, `the budget covers two calls (accepted ${ids.length})`);
    assert.ok(usage!.spent <= limit, `spent ${usage!.spent} ≤ limit ${limit}`);
    assert.equal(usage!.reserved, 0);
    return { accepted: ids.length, upstreamBodies: upstream.bodies };
  } finally {
    await store.close();
    await relay.stop();
    await upstream.stop();
  }
}

function bytesOf(body: unknown): number {
  return new TextEncoder().encode(JSON.stringify(body)).byteLength;
}

describe("zero overshoot: request shapes the provider bills beyond one bounded output", () => {
  test("`n: 8` reserves every choice's output", async () => {
    const body = { model: "shape-model", messages: [{ role: "user", content: "hello" }], max_tokens: 100, n: 8 };
    const reservation = reservationFor({ requestBytes: bytesOf(body), maxOutputTokens: 100, choices: 8, price: SHAPE_PRICE, model: "shape-model" }).amount;
    const old = reservationFor({ requestBytes: bytesOf(body), maxOutputTokens: 100, price: SHAPE_PRICE, model: "shape-model" }).amount;
    assert.ok(old * 4 < reservation, "the old reservation would admit more calls than the budget covers");
    const { accepted } = await shapeHoldsCeiling(body, reservation);
    assert.equal(accepted, 2);
  });

  test("no output limit: Renio adds the limit it reserved to the upstream request", async () => {
    const body = { model: "shape-model", messages: [{ role: "user", content: "hello" }] };
    const reserved = reservationFor({ requestBytes: bytesOf(body), price: SHAPE_PRICE, model: "shape-model" });
    assert.ok(reserved.outputTokens < UNLIMITED_OUTPUT, "unlimited, the upstream would bill more than was reserved");
    const { accepted, upstreamBodies } = await shapeHoldsCeiling(body, reserved.amount);
    assert.equal(accepted, 2);
    for (const sent of upstreamBodies) assert.equal(sent["max_tokens"], reserved.outputTokens);
  });
});

describe("strict budgets refuse or bound what the body does not show", () => {
  const imageBody = {
    model: "shape-model",
    max_tokens: 100,
    messages: [{ role: "user", content: [{ type: "text", text: "what is this?" }, { type: "image_url", image_url: { url: "https://example.com/cat.png" } }] }],
  };

  test("a referenced image reserves the context window", async () => {
    const reservation = reservationFor({ requestBytes: bytesOf(imageBody), maxOutputTokens: 100, inputByReference: true, price: SHAPE_PRICE, model: "shape-model" }).amount;
    const old = reservationFor({ requestBytes: bytesOf(imageBody), maxOutputTokens: 100, price: SHAPE_PRICE, model: "shape-model" }).amount;
    assert.ok(old * 4 < reservation, "the old reservation would admit more calls than the budget covers");
    const { accepted } = await shapeHoldsCeiling(imageBody, reservation);
    assert.equal(accepted, 2);
  });

  test("per-use server tools and references without a context window are refused with the reason", async () => {
    const upstream = await startScriptedUpstream(UNLIMITED_OUTPUT, REFERENCED_INPUT);
    const relay = await startRelay(upstream.url, {
      models: { "shape-model": { provider: "mock" }, "no-window": { provider: "mock" } },
      prices: { "shape-model": SHAPE_PRICE, "no-window": { input: 1, output: 10 } },
      budgets: [{ id: "shape", scope: "total", period: "total", limit: 10, mode: "strict" }],
    });
    try {
      const tool = await post(relay.url, "/v1/responses", { model: "shape-model", input: "news?", max_output_tokens: 100, tools: [{ type: "web_search_preview" }] });
      assert.equal(tool.status, 403);
      const toolError = await errorOf(tool);
      assert.equal(toolError.code, "tool_not_bounded");
      assert.match(toolError.message, /`web_search_preview`/);
      const unbounded = await post(relay.url, "/v1/chat/completions", { ...imageBody, model: "no-window" });
      assert.equal(unbounded.status, 403);
      const inputError = await errorOf(unbounded);
      assert.equal(inputError.code, "input_not_bounded");
      assert.match(inputError.message, /`no-window`.*contextWindow/);
      assert.equal(upstream.bodies.length, 0, "nothing reached the provider");
    } finally {
      await relay.stop();
      await upstream.stop();
    }
  });
});
