import assert from "node:assert/strict";
import process from "node:process";
import { after, before, describe, test } from "node:test";
import OpenAI from "openai";
import type { StorageConfig } from "../../../src/config/config-schema.ts";
import { admin, ADMIN_TOKEN, listedBudgets } from "../../support/admin-api.ts";
import { testPostgresUrl } from "../../support/postgres.ts";
import { startMockServer, TEST_KEY, type MockServer } from "../../support/relay-harness.ts";
import { relayConfig, scratchDir, startRelayProcess, writeConfig, type RenioProcess } from "../../support/relay-process.ts";
import { eventually } from "../../support/sse-bytes.ts";
import { pgExec } from "../../support/store-targets.ts";

/** How often the polling relays check the store for budget changes in this test. */
const POLL_MS = 200;
const SERVER = { host: "127.0.0.1", port: 0, shutdownGraceMs: 5000, adminToken: ADMIN_TOKEN };

let mock: MockServer;
let storage: StorageConfig;
let dir: string;
const relays: RenioProcess[] = [];

before(async () => {
  mock = await startMockServer();
  const base = testPostgresUrl();
  const name = `renio_store_budgets_${process.pid}`;
  await pgExec(base, `create database ${name}`);
  const url = new URL(base);
  url.pathname = `/${name}`;
  storage = { type: "postgres", url: url.toString(), poolSize: 4 };
  dir = scratchDir();
});

after(async () => {
  for (const relay of relays) assert.equal((await relay.stop()).code, 0, relay.output());
  await mock.stop();
});

async function startRelayPolling(pollMs: number): Promise<RenioProcess> {
  const config = writeConfig(dir, relayConfig(mock.url, storage, { server: SERVER, budget: { storePollMs: pollMs } }), `relay-${relays.length}.json`);
  const relay = await startRelayProcess(config);
  relays.push(relay);
  return relay;
}

/** One call through the official SDK: "ok" or its error code. */
async function call(url: string): Promise<string> {
  const client = new OpenAI({ apiKey: TEST_KEY, baseURL: `${url}/v1`, maxRetries: 0, timeout: 10_000 });
  try {
    await client.chat.completions.create({ model: "mock-gpt", messages: [{ role: "user", content: "hello" }], max_tokens: 50 });
    return "ok";
  } catch (error) {
    if (!(error instanceof OpenAI.APIError)) throw error;
    return String(error.code);
  }
}

describe("stored budgets on two relays sharing PostgreSQL", () => {
  let a: RenioProcess;
  let b: RenioProcess;

  test(`a budget created on one relay applies on the other within the poll delay (budget.storePollMs ${POLL_MS})`, async () => {
    [a, b] = await Promise.all([startRelayPolling(POLL_MS), startRelayPolling(POLL_MS)]);
    assert.equal(await call(b.url), "ok");
    const created = await admin(a.url, "POST", "/budgets", { id: "pg-team", scope: { key: "test" }, period: "day", limit: 0, mode: "strict" });
    assert.equal(created.status, 201);
    assert.equal(await call(a.url), "budget_exceeded", "in force on the relay that made it before it answered");
    const start = performance.now();
    assert.ok(await eventually(async () => (await call(b.url)) === "budget_exceeded", 20 * POLL_MS), "the other relay applies it");
    const delay = performance.now() - start;
    assert.ok(delay <= 20 * POLL_MS, `applied on the other relay after ${Math.round(delay)} ms`);

    const raised = await admin(b.url, "PATCH", "/budgets/pg-team", { limit: 100 });
    assert.equal(raised.status, 200);
    assert.equal(await call(a.url), "ok", "a limit raised on the other relay admits at once: the admission reads it from the store");
    assert.equal((await listedBudgets(a.url)).get("pg-team")!.limit, 100);
  });

  test("a relay that has not polled yet decides by the store: pause refuses, resume admits, delete stops applying", async () => {
    const stale = await startRelayPolling(3_600_000);
    assert.equal(await call(stale.url), "ok");
    assert.equal((await admin(a.url, "PATCH", "/budgets/pg-team", { paused: true })).status, 200);
    assert.equal(await call(stale.url), "budget_paused");
    assert.equal((await admin(a.url, "PATCH", "/budgets/pg-team", { paused: false, limit: 0 })).status, 200);
    assert.equal(await call(stale.url), "budget_exceeded");
    assert.equal((await admin(a.url, "DELETE", "/budgets/pg-team")).status, 200);
    assert.equal(await call(stale.url), "ok", "a deleted budget no longer refuses, even where it is still known");
    assert.equal(await call(b.url), "ok");
  });
});
