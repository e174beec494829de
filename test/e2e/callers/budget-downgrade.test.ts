import assert from "node:assert/strict";
import process from "node:process";
import { after, before, describe, test } from "node:test";
import type { StorageConfig } from "../../../src/config/config-schema.ts";
import { reservationFor } from "../../../src/pricing/reservation.ts";
import type { Store } from "../../../src/storage/store.ts";
import { booksReport } from "../../../src/budgets/books-check.ts";
import { testPostgresUrl } from "../../support/postgres.ts";
import { startMockServer, type MockServer } from "../../support/relay-harness.ts";
import { chatBody, errorOf, finishedEntries, mockStats, openStore, post } from "../../support/relay-calls.ts";
import { relayConfig, scratchDir, startRelayProcess, writeConfig } from "../../support/relay-process.ts";
import { pgExec } from "../../support/store-targets.ts";
import { withRelay } from "../../support/with-relay.ts";

const CALLS = 200;
const DEAR = { input: 10, cachedInput: 10, output: 40 };
const CHEAP = { input: 0.5, cachedInput: 0.5, output: 2 };
const BODY = chatBody({ model: "dear", max_tokens: 1000 });
const BODY_BYTES = new TextEncoder().encode(JSON.stringify(BODY)).byteLength;
const reservationOf = (price: typeof DEAR, bytes: number) => reservationFor({ requestBytes: bytes, maxOutputTokens: 1000, price, model: "m" }).amount;
/** Both models are quoted on the request as it arrived. */
const DEAR_RESERVATION = reservationOf(DEAR, BODY_BYTES);
/** Ten dear calls' room: the rest must go to the cheaper model while it fits, then be refused. */
const LIMIT = Math.round(DEAR_RESERVATION * 10.5 * 1e6) / 1e6;
const CONFIG = {
  models: { dear: { provider: "mock", model: "mock-gpt" }, cheap: { provider: "mock", model: "mock-gpt" } },
  prices: { dear: DEAR, cheap: CHEAP },
  budgets: [{ id: "app", scope: { project: "tests" }, period: "total", limit: LIMIT, mode: "strict", onExceeded: { model: "cheap" } }],
};

let mock: MockServer;

before(async () => {
  mock = await startMockServer();
});

after(async () => {
  await mock.stop();
});

/** Fires the calls; each answer is served by `dear`, served by `cheap` (and says so), or refused for the budget. */
async function fire(urls: readonly string[]): Promise<Map<string, "dear" | "cheap">> {
  const before = (await mockStats(mock.url)).received;
  const served = new Map<string, "dear" | "cheap">();
  let refused = 0;
  await Promise.all(
    Array.from({ length: CALLS }, async (_, i) => {
      const response = await post(urls[i % urls.length]!, "/v1/chat/completions", BODY, { "x-mock-fault": "delay=100" });
      if (response.status === 200) {
        await response.arrayBuffer();
        const model = response.headers.get("x-renio-model");
        if (model === null) served.set(response.headers.get("x-request-id")!, "dear");
        else {
          assert.equal(model, "cheap");
          assert.equal(response.headers.get("x-renio-downgraded-from"), "dear");
          served.set(response.headers.get("x-request-id")!, "cheap");
        }
        return;
      }
      assert.equal(response.status, 429);
      assert.equal((await errorOf(response)).code, "budget_exceeded");
      refused++;
    }),
  );
  assert.equal((await mockStats(mock.url)).received - before, served.size, "only admitted calls reached the provider");
  const counts = [...served.values()];
  assert.ok(counts.includes("dear") && counts.includes("cheap"), `both models served (${counts.filter((m) => m === "dear").length} dear, ${counts.filter((m) => m === "cheap").length} cheap)`);
  assert.ok(refused > 0, "once neither fits, calls are refused");
  return served;
}

/** No overshoot; each entry says which model served it and whether it was downgraded; the budget row is the journal's sum. */
async function assertBooks(store: Store, served: ReadonlyMap<string, "dear" | "cheap">): Promise<void> {
  const entries = await finishedEntries(store, [...served.keys()], 15_000);
  let settled = 0;
  for (const [id, model] of served) {
    const entry = entries.get(id)!;
    assert.equal(entry.outcome, "ok");
    assert.equal(entry.model, model);
    assert.equal(entry.downgradedFrom, model === "cheap" ? "dear" : null);
    const bound = model === "dear" ? DEAR_RESERVATION : reservationOf(CHEAP, BODY_BYTES);
    assert.ok(entry.reservedCost !== null && entry.reservedCost <= bound + 1e-9, `${model} call reserved ${entry.reservedCost} ≤ ${bound}`);
    settled += entry.cost!;
  }
  const [row] = await store.budgetUsage([{ budgetId: "app", period: "total" }]);
  assert.ok(row!.spent <= LIMIT, `spent ${row!.spent} ≤ ${LIMIT}`);
  assert.ok(Math.abs(row!.spent - settled) < 1e-9, `row ${row!.spent} = journal ${settled}`);
  assert.equal(row!.reserved, 0);
  assert.ok(booksReport(await store.checkBooks()).ok, "the books' check holds");
}

describe("a budget that serves a cheaper model instead of refusing, under 200 concurrent calls", () => {
  test("one relay on SQLite", async () => {
    await withRelay(mock.url, CONFIG, async ({ relay, store }) => {
      await assertBooks(store, await fire([relay.url]));
    });
  });

  test("two relay processes sharing one PostgreSQL", async () => {
    const base = testPostgresUrl();
    const name = `renio_downgrade_${process.pid}`;
    await pgExec(base, `create database ${name}`);
    const url = new URL(base);
    url.pathname = `/${name}`;
    const storage: StorageConfig = { type: "postgres", url: url.toString(), poolSize: 8 };
    const configPath = writeConfig(scratchDir(), relayConfig(mock.url, storage, CONFIG));
    const relays = await Promise.all([startRelayProcess(configPath), startRelayProcess(configPath)]);
    const store = await openStore(storage);
    try {
      await assertBooks(store, await fire(relays.map((r) => r.url)));
    } finally {
      await store.close();
      for (const relay of relays) assert.equal((await relay.stop()).code, 0, relay.output());
    }
  });
});
