import assert from "node:assert/strict";
import process from "node:process";
import { after, before, describe, test } from "node:test";
import { periodOf } from "../../../src/budgets/budget-plan.ts";
import type { StorageConfig } from "../../../src/config/config-schema.ts";
import { BUILTIN_PRICES } from "../../../src/pricing/prices-builtin.ts";
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
const USERS = 20;
const BODY = chatBody({ max_tokens: 1000 });
const BODY_BYTES = new TextEncoder().encode(JSON.stringify(BODY)).byteLength;
const RESERVATION = reservationFor({ requestBytes: BODY_BYTES, maxOutputTokens: 1000, price: BUILTIN_PRICES["mock"]!, model: "mock-gpt" }).amount;
const round = (amount: number) => Math.round(amount * 1e6) / 1e6;
/** Each end user's day: three and a half reservations (20 users could take 70 calls)… */
const USER_LIMIT = round(RESERVATION * 3.5);
/** …but the team's day covers 40 and a half: it binds first. */
const TEAM_LIMIT = round(RESERVATION * 40.5);
const CONFIG = {
  teams: [{ id: "growth", projects: ["tests"] }],
  budgets: [
    { id: "per-user", scope: { endUser: { project: "tests" } }, period: "day", limit: USER_LIMIT, mode: "strict" },
    { id: "team", scope: { team: "growth" }, period: "day", limit: TEAM_LIMIT, mode: "strict" },
  ],
};

let mock: MockServer;

before(async () => {
  mock = await startMockServer();
});

after(async () => {
  await mock.stop();
});

const userOf = (i: number) => `user-${i % USERS}`;

/** Fires the calls over `urls`, each naming its end user; the mock holds each 100 ms so reservations overlap. */
async function fire(urls: readonly string[]): Promise<{ accepted: Map<string, string>; refusedBy: Map<string, number> }> {
  const before = (await mockStats(mock.url)).received;
  const accepted = new Map<string, string>();
  const refusedBy = new Map<string, number>();
  await Promise.all(
    Array.from({ length: CALLS }, async (_, i) => {
      const response = await post(urls[i % urls.length]!, "/v1/chat/completions", BODY, { "x-mock-fault": "delay=100", "x-renio-end-user": userOf(i) });
      if (response.status === 200) {
        await response.arrayBuffer();
        accepted.set(response.headers.get("x-request-id")!, userOf(i));
        return;
      }
      assert.equal(response.status, 429);
      assert.equal((await errorOf(response)).code, "budget_exceeded");
      const budget = response.headers.get("x-renio-budget")!;
      assert.ok(budget === "team" || budget === `per-user/${userOf(i)}`, `refused by its own budgets only, got ${budget}`);
      refusedBy.set(budget, (refusedBy.get(budget) ?? 0) + 1);
    }),
  );
  assert.equal((await mockStats(mock.url)).received - before, accepted.size, "only accepted calls reached the provider");
  return { accepted, refusedBy };
}

/** No budget went past its limit, and each stored row's spend is the sum of the journal's charges on it. */
async function assertBooks(store: Store, accepted: ReadonlyMap<string, string>): Promise<void> {
  const entries = await finishedEntries(store, [...accepted.keys()], 15_000);
  const day = periodOf("day", new Date());
  const byUser = new Map<string, number>();
  let team = 0;
  for (const [id, user] of accepted) {
    const entry = entries.get(id)!;
    assert.equal(entry.outcome, "ok");
    assert.equal(entry.endUser, user, "the entry names its end user");
    assert.equal(entry.team, "growth", "and its team");
    assert.ok(entry.cost !== null && entry.cost > 0);
    team += entry.cost;
    byUser.set(user, (byUser.get(user) ?? 0) + entry.cost);
  }
  const rows = new Map((await store.budgetUsage()).map((row) => [`${row.budgetId}@${row.period}`, row]));
  const teamRow = rows.get(`team@${day}`)!;
  assert.ok(teamRow.spent <= TEAM_LIMIT, `team spent ${teamRow.spent} ≤ ${TEAM_LIMIT}`);
  assert.ok(Math.abs(teamRow.spent - team) < 1e-9, `team row ${teamRow.spent} = journal ${team}`);
  assert.equal(teamRow.reserved, 0);
  for (let u = 0; u < USERS; u++) {
    const user = `user-${u}`;
    const row = rows.get(`per-user/${user}@${day}`);
    assert.ok(row !== undefined, `${user}'s row was created on first use`);
    assert.ok(row.spent <= USER_LIMIT, `${user} spent ${row.spent} ≤ ${USER_LIMIT}`);
    assert.ok(Math.abs(row.spent - (byUser.get(user) ?? 0)) < 1e-9, `${user}: row ${row.spent} = journal ${byUser.get(user) ?? 0}`);
    assert.equal(row.reserved, 0);
  }
  assert.ok(accepted.size >= 40, `the team budget covers 40 calls (accepted ${accepted.size})`);
  const books = booksReport(await store.checkBooks());
  assert.ok(books.ok, `the books' check: every budget row (team and 20 end users) equals the journal's charges on it: ${JSON.stringify(books.rows.filter((r) => r.spentDrift !== 0 || r.reservedDrift !== 0))}`);
  assert.ok(books.rows.length >= USERS + 1);
}

describe("200 concurrent calls of 20 end users under a per-end-user budget and a team budget that binds first", () => {
  test("one relay on SQLite", async () => {
    await withRelay(mock.url, CONFIG, async ({ relay, store }) => {
      const { accepted, refusedBy } = await fire([relay.url]);
      assert.ok((refusedBy.get("team") ?? 0) > 0, "the team budget refused calls");
      await assertBooks(store, accepted);
    });
  });

  test("two relay processes sharing one PostgreSQL", async () => {
    const base = testPostgresUrl();
    const name = `renio_spenders_${process.pid}`;
    await pgExec(base, `create database ${name}`);
    const url = new URL(base);
    url.pathname = `/${name}`;
    const storage: StorageConfig = { type: "postgres", url: url.toString(), poolSize: 8 };
    const configPath = writeConfig(scratchDir(), relayConfig(mock.url, storage, CONFIG));
    const relays = await Promise.all([startRelayProcess(configPath), startRelayProcess(configPath)]);
    const store = await openStore(storage);
    try {
      const { accepted, refusedBy } = await fire(relays.map((r) => r.url));
      assert.ok((refusedBy.get("team") ?? 0) > 0, "the team budget refused calls");
      await assertBooks(store, accepted);
    } finally {
      await store.close();
      for (const relay of relays) assert.equal((await relay.stop()).code, 0, relay.output());
    }
  });
});
