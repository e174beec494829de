import assert from "node:assert/strict";
import process from "node:process";
import { after, before, describe, test } from "node:test";
import type { StorageConfig } from "../src/config/config-schema.ts";
import { BUILTIN_PRICES } from "../src/budget/prices-builtin.ts";
import { reservationFor } from "../src/budget/reservation.ts";
import type { Store } from "../src/storage/store.ts";
import { testPostgresUrl } from "./support/postgres.ts";
import { startMockServer, startRelay, type MockServer } from "./support/relay-harness.ts";
import { chatBody, errorOf, finishedEntries, mockStats, openStore, post } from "./support/relay-calls.ts";
import { relayConfig, scratchDir, startRelayProcess, writeConfig } from "./support/relay-process.ts";
import { pgExec } from "./support/store-targets.ts";

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

/** Fires `CALLS` concurrent calls spread over `urls`; the mock holds each for 100 ms so reservations overlap. */
async function fire(urls: readonly string[]): Promise<{ accepted: string[]; refused: number }> {
  const before = (await mockStats(mock.url)).received;
  const results = await Promise.all(
    Array.from({ length: CALLS }, async (_, i) => {
      const response = await post(urls[i % urls.length]!, "/v1/chat/completions", BODY, { "x-mock-fault": "delay=100" });
      const id = response.headers.get("x-request-id")!;
      if (response.status === 200) {
        await response.arrayBuffer();
        return { id, accepted: true };
      }
      assert.equal(response.status, 429);
      const error = await errorOf(response);
      assert.equal(error.code, "budget_exceeded");
      const message = /^Budget `tight` cannot cover this request: limit ([\d.]+) USD, ([\d.]+) USD remaining$/.exec(error.message);
      assert.ok(message, `the message names the budget, limit and remaining: ${error.message}`);
      assert.equal(Number(message[1]), LIMIT);
      const remaining = Number(response.headers.get("x-renio-budget-remaining"));
      assert.equal(response.headers.get("x-renio-budget"), "tight");
      assert.equal(Number(message[2]), remaining);
      assert.ok(remaining < RESERVATION, `refused while ${remaining} remained, enough for a ${RESERVATION} reservation`);
      return { id, accepted: false };
    }),
  );
  const accepted = results.filter((r) => r.accepted).map((r) => r.id);
  assert.equal((await mockStats(mock.url)).received - before, accepted.length, "only accepted calls reached the provider");
  return { accepted, refused: CALLS - accepted.length };
}

/** Settled cost of the accepted calls ≤ limit, everything settled, nothing left reserved. */
async function assertNoOvershoot(store: Store, accepted: readonly string[]): Promise<void> {
  assert.ok(accepted.length >= 50, `at least the 50 calls the budget covers were accepted (got ${accepted.length})`);
  const entries = await finishedEntries(store, accepted, 10_000);
  let settled = 0;
  for (const id of accepted) {
    const entry = entries.get(id)!;
    assert.equal(entry.outcome, "ok");
    assert.ok(entry.cost !== null && entry.cost > 0 && entry.cost <= RESERVATION);
    settled += entry.cost;
  }
  assert.ok(settled <= LIMIT, `settled ${settled} ≤ limit ${LIMIT}`);
  const [usage] = await store.budgetUsage([{ budgetId: "tight", period: "total" }]);
  assert.ok(usage!.spent <= LIMIT);
  assert.ok(Math.abs(usage!.spent - settled) < 1e-9, `stored spend ${usage!.spent} = settled ${settled}`);
  assert.equal(usage!.reserved, 0);
}

describe("zero overshoot: 200 concurrent calls at a budget covering about 50", () => {
  test("one relay on SQLite", async () => {
    const relay = await startRelay(mock.url, { budgets: BUDGETS });
    const store = await openStore(relay.config.storage);
    try {
      const { accepted, refused } = await fire([relay.url]);
      assert.ok(refused > 0);
      await assertNoOvershoot(store, accepted);
    } finally {
      await store.close();
      await relay.stop();
    }
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
      await assertNoOvershoot(store, accepted);
    } finally {
      await store.close();
      for (const relay of relays) assert.equal((await relay.stop()).code, 0, relay.output());
    }
  });
});
