import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import OpenAI from "openai";
import type { Store } from "../../../src/storage/store.ts";
import { admin, ADMIN_TOKEN, errorIn, listedBudgets } from "../../support/admin-api.ts";
import { finishedEntries, mockStats, openStore } from "../../support/relay-calls.ts";
import { eventually } from "../../support/sse-bytes.ts";
import { startMockServer, startRelay, TEST_KEY, type MockServer, type RelayUnderTest } from "../../support/relay-harness.ts";

let mock: MockServer;
let relay: RelayUnderTest;
let store: Store;
let client: OpenAI;
/** What one call reserves (read from the budget headers of a first call). */
let reservation: number;

const CALL = { model: "mock-gpt", messages: [{ role: "user" as const, content: "hello" }], max_tokens: 200 };

before(async () => {
  mock = await startMockServer();
  relay = await startRelay(mock.url, {
    server: { host: "127.0.0.1", port: 0, shutdownGraceMs: 2000, adminToken: ADMIN_TOKEN },
    keys: [
      { id: "test", secret: TEST_KEY, project: "tests" },
      { id: "other", secret: "sk-renio-other-key-never-used-03", project: "others" },
    ],
    budgets: [{ id: "config-only", scope: { project: "others" }, period: "month", limit: 5 }],
  });
  store = await openStore(relay.config.storage);
  client = new OpenAI({ apiKey: TEST_KEY, baseURL: `${relay.url}/v1`, maxRetries: 0, timeout: 10_000 });
  // A large observe budget tells what one call reserves: its limit minus the remaining after the reservation.
  assert.equal((await admin(relay.url, "POST", "/budgets", { id: "probe", scope: "total", period: "total", limit: 1000, mode: "observe" })).status, 201);
  const { response } = await client.chat.completions.create(CALL).withResponse();
  reservation = 1000 - Number(response.headers.get("x-renio-budget-remaining"));
  assert.ok(reservation > 0);
  assert.equal((await admin(relay.url, "DELETE", "/budgets/probe")).status, 200);
});

after(async () => {
  await store.close();
  await relay.stop();
  await mock.stop();
});

/** One call through the official SDK: "ok", or the code of the error it failed with. */
async function call(headers: Record<string, string> = {}): Promise<{ outcome: string; id: string | null; status: number }> {
  try {
    const { response } = await client.chat.completions.create(CALL, { headers }).withResponse();
    return { outcome: "ok", id: response.headers.get("x-request-id"), status: response.status };
  } catch (error) {
    if (!(error instanceof OpenAI.APIError)) throw error;
    return { outcome: String(error.code), id: error.headers?.get("x-request-id") ?? null, status: error.status ?? 0 };
  }
}

/** The stored usage of budget `id` in its only period. */
async function usageOf(id: string) {
  return (await store.budgetUsage()).find((row) => row.budgetId === id);
}

describe("budgets created and changed at run time, on one relay (SQLite)", () => {
  test("a budget created at run time refuses at its limit; raised, it admits what it refused", async () => {
    const limit = Math.round(reservation * 2.5 * 1e9) / 1e9;
    const created = await admin(relay.url, "POST", "/budgets", { id: "team-day", scope: { project: "tests" }, period: "day", limit, mode: "strict" });
    assert.equal(created.status, 201);
    assert.deepEqual(
      { ...created.body, createdAt: 0, updatedAt: 0 },
      { object: "budget", source: "store", id: "team-day", scope: { project: "tests" }, period: "day", limit, mode: "strict", paused: false, createdAt: 0, updatedAt: 0 },
    );
    const admitted: string[] = [];
    let refused: Awaited<ReturnType<typeof call>> | undefined;
    for (let i = 0; i < 10 && refused === undefined; i++) {
      const result = await call();
      if (result.outcome === "ok") admitted.push(result.id!);
      else refused = result;
    }
    assert.ok(refused, "the budget refused a call");
    assert.equal(refused.status, 429);
    assert.equal(refused.outcome, "budget_exceeded");
    assert.ok(admitted.length >= 2, `the budget covers two reservations (admitted ${admitted.length})`);
    await finishedEntries(store, admitted);
    assert.ok((await usageOf("team-day"))!.spent <= limit);

    const raised = await admin(relay.url, "PATCH", "/budgets/team-day", { limit: reservation * 10 });
    assert.equal(raised.status, 200);
    assert.equal(raised.body["limit"], reservation * 10);
    assert.equal((await call()).outcome, "ok", "the call it refused is admitted at once");
  });

  test("a limit lowered below what is spent refuses new calls; a call admitted before settles normally", async () => {
    const received = (await mockStats(mock.url)).received;
    const inFlight = call({ "x-mock-fault": "delay=2000" }); // in flight for as long as the checks below take, on a loaded machine too
    // The slow call is admitted (it reached the provider) before the limit is lowered.
    assert.ok(await eventually(async () => (await mockStats(mock.url)).received > received), "the slow call reached the provider");
    const spentBefore = (await listedBudgets(relay.url)).get("team-day")!;
    assert.ok(spentBefore.reserved > 0, "the slow call holds its reservation");
    const lowered = await admin(relay.url, "PATCH", "/budgets/team-day", { limit: spentBefore.spent / 2 });
    assert.equal(lowered.status, 200);
    const refused = await call();
    assert.equal(refused.outcome, "budget_exceeded");
    const slow = await inFlight;
    assert.equal(slow.outcome, "ok", "the call admitted before the change completed");
    const entries = await finishedEntries(store, [slow.id!]);
    assert.equal(entries.get(slow.id!)!.outcome, "ok");
    const listed = (await listedBudgets(relay.url)).get("team-day")!;
    assert.equal(listed.limit, spentBefore.spent / 2);
    assert.equal(listed.reserved, 0);
    assert.ok(Math.abs(listed.spent - (spentBefore.spent + entries.get(slow.id!)!.cost!)) < 1e-9, "its cost is charged");
    assert.ok(listed.remaining < 0);
  });

  test("paused refuses every call it covers (429 budget_paused) until resumed; observe mode admits past the limit", async () => {
    assert.equal((await admin(relay.url, "PATCH", "/budgets/team-day", { limit: reservation * 100, paused: true })).status, 200);
    const paused = await call();
    assert.deepEqual([paused.status, paused.outcome], [429, "budget_paused"]);
    const entries = await finishedEntries(store, [paused.id!]);
    assert.equal(entries.get(paused.id!)!.errorCode, "budget_paused");
    assert.equal((await listedBudgets(relay.url)).get("team-day")!.paused, true);
    assert.equal((await admin(relay.url, "PATCH", "/budgets/team-day", { paused: false })).status, 200);
    assert.equal((await call()).outcome, "ok");
    assert.equal((await admin(relay.url, "PATCH", "/budgets/team-day", { limit: 0, mode: "observe" })).status, 200);
    assert.equal((await call()).outcome, "ok", "an observe budget never refuses");
  });

  test("a deleted budget stops applying; its spend stays listed without a definition", async () => {
    assert.equal((await admin(relay.url, "PATCH", "/budgets/team-day", { mode: "strict" })).status, 200);
    assert.equal((await call()).outcome, "budget_exceeded");
    const deleted = await admin(relay.url, "DELETE", "/budgets/team-day");
    assert.equal(deleted.status, 200);
    assert.equal(deleted.body["deleted"], true);
    assert.equal((await call()).outcome, "ok");
    const row = (await listedBudgets(relay.url)).get("team-day")!;
    assert.deepEqual([row.source, row.scope, row.mode], [null, null, null]);
    assert.ok(row.spent > 0);
    assert.equal((await admin(relay.url, "PATCH", "/budgets/team-day", { limit: 1 })).status, 404);
  });

  test("config budgets are listed read-only beside the store's", async () => {
    assert.equal((await admin(relay.url, "POST", "/budgets", { id: "month-all", scope: "total", limit: 100 })).status, 201);
    const listed = await listedBudgets(relay.url);
    const config = listed.get("config-only")!;
    assert.deepEqual([config.source, config.mode, config.limit, config.paused], ["config", "strict", 5, false]);
    const stored = listed.get("month-all")!;
    assert.deepEqual([stored.source, stored.mode, stored.limit, stored.period], ["store", "strict", 100, new Date().toISOString().slice(0, 7)]);
    const duplicate = await admin(relay.url, "POST", "/budgets", { id: "config-only", scope: "total", limit: 1 });
    assert.deepEqual([duplicate.status, errorIn(duplicate).code], [409, "budget_exists"]);
    const change = await admin(relay.url, "PATCH", "/budgets/config-only", { limit: 1 });
    assert.deepEqual([change.status, errorIn(change).code], [409, "budget_read_only"]);
    assert.match(errorIn(change).message, /config file/);
    assert.equal((await admin(relay.url, "DELETE", "/budgets/config-only")).status, 409);
  });

  test("bad bodies get 400 naming the field; unknown ids 404; duplicates 409; no token 401", async () => {
    const cases: Array<[string, string, unknown, number, string, RegExp]> = [
      ["POST", "/budgets", { id: "x", scope: "total" }, 400, "invalid_request", /`limit`/],
      ["POST", "/budgets", { id: "x", scope: { group: "a" }, limit: 1 }, 400, "invalid_request", /`scope`/],
      ["POST", "/budgets", { id: "x y", scope: "total", limit: 1 }, 400, "invalid_request", /`id`: use letters/],
      ["POST", "/budgets", { id: "x", scope: "total", limit: -1 }, 400, "invalid_request", /`limit`/],
      ["POST", "/budgets", { id: "x", scope: "total", limit: 1, period: "week" }, 400, "invalid_request", /`period`/],
      ["POST", "/budgets", { id: "x", scope: "total", limit: 1, colour: "red" }, 400, "invalid_request", /colour/],
      ["POST", "/budgets", "{not json", 400, "invalid_json", /JSON/],
      ["PATCH", "/budgets/month-all", {}, 400, "invalid_request", /at least one of `limit`, `mode`, `paused`/],
      ["PATCH", "/budgets/month-all", { mode: "loose" }, 400, "invalid_request", /`mode`/],
      ["PATCH", "/budgets/month-all", { scope: "total" }, 400, "invalid_request", /scope/],
      ["PATCH", "/budgets/nope", { limit: 1 }, 404, "budget_not_found", /No budget `nope`/],
      ["DELETE", "/budgets/nope", undefined, 404, "budget_not_found", /No budget `nope`/],
      ["POST", "/budgets", { id: "month-all", scope: "total", limit: 1 }, 409, "budget_exists", /already exists/],
    ];
    for (const [method, path, body, status, code, message] of cases) {
      const answer = await admin(relay.url, method, path, body);
      const label = `${method} ${path} ${JSON.stringify(body)}`;
      assert.equal(answer.status, status, label);
      assert.equal(errorIn(answer).code, code, label);
      assert.match(errorIn(answer).message, message, label);
    }
    const anonymous = await fetch(`${relay.url}/admin/budgets`, { method: "POST", body: "{}" });
    assert.equal(anonymous.status, 401);
    await anonymous.arrayBuffer();
  });
});

describe("budget changes in the admin audit", () => {
  test("create, change and delete through the API are each recorded with the admin token's id, before and after", async () => {
    assert.equal((await admin(relay.url, "POST", "/budgets", { id: "audited", scope: "total", period: "day", limit: 3 })).status, 201);
    assert.equal((await admin(relay.url, "PATCH", "/budgets/audited", { limit: 4 })).status, 200);
    assert.equal((await admin(relay.url, "DELETE", "/budgets/audited")).status, 200);
    const page = await admin<{ data: Array<{ actor: string; action: string; before: { limit: number } | null; after: { limit: number } | null }> }>(relay.url, "GET", "/audit?target=budget:audited");
    assert.equal(page.status, 200);
    assert.deepEqual(
      page.body.data.map((event) => [event.actor, event.action, event.before?.limit ?? null, event.after?.limit ?? null]),
      [
        ["admin", "budget.delete", 4, null],
        ["admin", "budget.update", 3, 4],
        ["admin", "budget.create", null, 3],
      ],
    );
  });
});
