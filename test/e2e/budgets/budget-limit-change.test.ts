import assert from "node:assert/strict";
import process from "node:process";
import { after, before, describe, test } from "node:test";
import { BUILTIN_PRICES } from "../../../src/pricing/prices-builtin.ts";
import { reservationFor } from "../../../src/pricing/reservation.ts";
import type { StorageConfig } from "../../../src/config/config-schema.ts";
import type { Store } from "../../../src/storage/store.ts";
import { admin, ADMIN_TOKEN } from "../../support/admin-api.ts";
import { testPostgresUrl } from "../../support/postgres.ts";
import { chatBody, errorOf, finishedEntries, mockStats, openStore, post } from "../../support/relay-calls.ts";
import { startMockServer, startRelay, type MockServer } from "../../support/relay-harness.ts";
import { relayConfig, scratchDir, startRelayProcess, writeConfig } from "../../support/relay-process.ts";
import { eventually } from "../../support/sse-bytes.ts";
import { pgExec } from "../../support/store-targets.ts";

const CALLS = 100;
const IN_FLIGHT = 10;
const BODY = chatBody({ max_tokens: 1000 });
const BODY_BYTES = new TextEncoder().encode(JSON.stringify(BODY)).byteLength;
const RESERVATION = reservationFor({ requestBytes: BODY_BYTES, maxOutputTokens: 1000, price: BUILTIN_PRICES["mock"]!, model: "mock-gpt" }).amount;
const limitOf = (reservations: number) => Math.round(RESERVATION * reservations * 1e9) / 1e9;
/** The limit the calls start under (60 reservations), the one it is lowered to while they run (30), and one below what is spent by then. */
const [FIRST, LOWERED, BELOW_SPENT] = [limitOf(60.5), limitOf(30.5), limitOf(1)];
const BUDGET = { id: "shrinking", scope: { project: "tests" }, period: "total", limit: FIRST, mode: "strict", paused: false } as const;

let mock: MockServer;

before(async () => {
  mock = await startMockServer();
});

after(async () => {
  await mock.stop();
});

interface Sent {
  id: string;
  status: number;
  code: string | null;
}

/** Sends one call to `url` (held 100 ms by the mock, so reservations overlap). */
async function send(url: string): Promise<Sent> {
  const response = await post(url, "/v1/chat/completions", BODY, { "x-mock-fault": "delay=100" });
  const id = response.headers.get("x-request-id")!;
  if (response.status === 200) {
    await response.arrayBuffer();
    return { id, status: 200, code: null };
  }
  return { id, status: response.status, code: (await errorOf(response)).code };
}

/** Calls admitted under the first limit before it is lowered. */
const BEFORE_CHANGE = 15;

/**
 * `CALLS` calls, `IN_FLIGHT` at a time, spread over `urls`: the first `BEFORE_CHANGE` are
 * admitted under the first limit, then the limit is lowered through `adminUrl` while the rest
 * are released at once, racing the change. Then checks what a strict budget promises across
 * the change: usage when it was made (at most 15 reservations) was under the lowered limit, so
 * no admission after it may take spend past it, whichever relay admits; nothing admitted is lost.
 */
async function lowerWhileCalling(urls: readonly string[], adminUrl: string, store: Store): Promise<void> {
  const received = (await mockStats(mock.url)).received;
  const results: Sent[] = [];
  let release!: () => void;
  const released = new Promise<void>((resolve) => (release = resolve));
  let next = 0;
  const worker = async (): Promise<void> => {
    while (next < CALLS) {
      const index = next++;
      if (index >= BEFORE_CHANGE) await released;
      results.push(await send(urls[index % urls.length]!));
    }
  };
  const workers = Promise.all(Array.from({ length: IN_FLIGHT }, worker));
  assert.ok(await eventually(async () => (await mockStats(mock.url)).received - received >= IN_FLIGHT, 30_000), "the first calls reached the provider");
  const lowered = admin(adminUrl, "PATCH", `/budgets/${BUDGET.id}`, { limit: LOWERED });
  release();
  assert.equal((await lowered).status, 200);
  await workers;

  const admitted = results.filter((r) => r.status === 200).map((r) => r.id);
  for (const refused of results.filter((r) => r.status !== 200)) assert.deepEqual([refused.status, refused.code], [429, "budget_exceeded"]);
  assert.ok(admitted.length >= BEFORE_CHANGE && admitted.length < CALLS, `some calls admitted, some refused (admitted ${admitted.length})`);
  const entries = await finishedEntries(store, admitted, 20_000);
  let settled = 0;
  for (const id of admitted) {
    assert.equal(entries.get(id)!.outcome, "ok", "every admitted call completed");
    settled += entries.get(id)!.cost!;
  }
  const [usage] = await store.budgetUsage([{ budgetId: BUDGET.id, period: "total" }]);
  assert.ok(usage!.spent <= LOWERED, `spent ${usage!.spent} ≤ the lowered limit ${LOWERED} (first limit ${FIRST})`);
  assert.ok(Math.abs(usage!.spent - settled) < 1e-9, "every admitted call's cost is charged");
  assert.equal(usage!.reserved, 0);
  assert.equal((await mockStats(mock.url)).received - received, admitted.length, "only admitted calls reached the provider");
}

/** Lowered below what is spent: every relay refuses at once; raised again: every relay admits. */
async function belowSpentThenRaised(urls: readonly string[], adminUrl: string): Promise<void> {
  assert.equal((await admin(adminUrl, "PATCH", `/budgets/${BUDGET.id}`, { limit: BELOW_SPENT })).status, 200);
  for (const url of urls) assert.deepEqual(await send(url).then((r) => [r.status, r.code]), [429, "budget_exceeded"], url);
  assert.equal((await admin(adminUrl, "PATCH", `/budgets/${BUDGET.id}`, { limit: FIRST * 2 })).status, 200);
  for (const url of urls) assert.equal((await send(url)).status, 200, url);
}

describe("zero overshoot across a limit lowered while 100 calls run", () => {
  test("one relay on SQLite", async () => {
    const relay = await startRelay(mock.url, { server: { host: "127.0.0.1", port: 0, shutdownGraceMs: 5000, adminToken: ADMIN_TOKEN } });
    const store = await openStore(relay.config.storage);
    try {
      assert.equal((await admin(relay.url, "POST", "/budgets", BUDGET)).status, 201);
      await lowerWhileCalling([relay.url], relay.url, store);
      await belowSpentThenRaised([relay.url], relay.url);
    } finally {
      await store.close();
      await relay.stop();
    }
  });

  test("two relay processes sharing PostgreSQL; the second has not polled the change", async () => {
    const base = testPostgresUrl();
    const name = `renio_limit_change_${process.pid}`;
    await pgExec(base, `create database ${name}`);
    const url = new URL(base);
    url.pathname = `/${name}`;
    const storage: StorageConfig = { type: "postgres", url: url.toString(), poolSize: 8 };
    const store = await openStore(storage);
    // Created before the relays start, so both charge it; the second relay then never polls (an hour), so it decides by the store alone.
    await store.createBudget(BUDGET);
    const server = { host: "127.0.0.1", port: 0, shutdownGraceMs: 5000, adminToken: ADMIN_TOKEN };
    const dir = scratchDir();
    const polling = writeConfig(dir, relayConfig(mock.url, storage, { server }), "a.json");
    const stale = writeConfig(dir, relayConfig(mock.url, storage, { server, budget: { storePollMs: 3_600_000 } }), "b.json");
    const relays = await Promise.all([startRelayProcess(polling), startRelayProcess(stale)]);
    try {
      const urls = relays.map((r) => r.url);
      await lowerWhileCalling(urls, urls[0]!, store);
      await belowSpentThenRaised(urls, urls[0]!);
    } finally {
      await store.close();
      for (const relay of relays) assert.equal((await relay.stop()).code, 0, relay.output());
    }
  });
});
