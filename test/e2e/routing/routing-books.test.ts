import assert from "node:assert/strict";
import process from "node:process";
import { after, before, beforeEach, describe, test } from "node:test";
import { costOf } from "../../../src/pricing/cost.ts";
import { reservationFor } from "../../../src/pricing/reservation.ts";
import type { JournalEntry } from "../../../src/shared/journal-records.ts";
import { admin, ADMIN_TOKEN } from "../../support/admin-api.ts";
import { freePort } from "../../support/free-port.ts";
import { startMockTargets, type MockTargets } from "../../support/mock-targets.ts";
import { testPostgresUrl } from "../../support/postgres.ts";
import { chatBody, finishedEntries, post } from "../../support/relay-calls.ts";
import { runRenio, writeConfig } from "../../support/relay-process.ts";
import { pgExec } from "../../support/store-targets.ts";
import { withRelay, type RelayWithStore } from "../../support/with-relay.ts";

/**
 * The books of a routed call, on both ledgers (SQLite's admission log, PostgreSQL's group
 * commit): one entry per call with every attempt and what each was charged, the budget spent
 * what the entries say, and a strict budget never overshot while half the calls retry.
 */

const PRICE = { input: 2, cachedInput: 2, output: 4, maxOutputTokens: 1000 };
const BODY = chatBody({ model: "pair", max_tokens: 100 });
/** One attempt's bound for a call to `model`: the body's bytes as input tokens plus max_tokens, at PRICE. */
const boundFor = (model: string) => reservationFor({ requestBytes: new TextEncoder().encode(JSON.stringify({ ...BODY, model })).byteLength, maxOutputTokens: 100, price: PRICE, model: "mock-gpt" }).amount;
const BOUND = boundFor("pair");

let targets: MockTargets;
let deadUrl: string;
let databases = 0;

before(async () => {
  targets = await startMockTargets(["a", "b"], { latencyMs: 20 });
  deadUrl = `http://127.0.0.1:${await freePort()}`;
});

after(async () => {
  await targets?.stop();
});

beforeEach(async () => {
  await targets.reset();
});

/** The relay's config: `a` preferred over `b`, the given budgets, PRICE for the upstream model. */
function routed(storage: Record<string, unknown> | undefined, budgets: unknown[]): Record<string, unknown> {
  const pair = (first: string, extra: Record<string, unknown> = {}) => ({ targets: [{ provider: first, model: "mock-gpt", priority: 1 }, { provider: "b", model: "mock-gpt" }], ...extra });
  return {
    server: { host: "127.0.0.1", port: 0, shutdownGraceMs: 2000, adminToken: ADMIN_TOKEN },
    ...(storage === undefined ? {} : { storage }),
    providers: { ...targets.providers({ a: { firstByteTimeoutMs: 400 } }), dead: { type: "mock", baseUrl: deadUrl } },
    models: { pair: pair("a"), "dead-first": pair("dead"), "pair-room": pair("a", { retry: { billedRetries: 1 } }) },
    routing: { cooldown: { failures: 1000 } },
    prices: { "mock-gpt": PRICE },
    budgets,
  };
}

const BACKENDS: ReadonlyArray<{ name: string; storage: () => Promise<Record<string, unknown> | undefined> }> = [
  { name: "SQLite (admission log)", storage: () => Promise.resolve(undefined) },
  {
    name: "PostgreSQL (group commit)",
    async storage() {
      const base = testPostgresUrl();
      const name = `renio_routing_books_${process.pid}_${databases++}_${Math.floor(Math.random() * 1e6)}`;
      await pgExec(base, `create database ${name}`);
      const url = new URL(base);
      url.pathname = `/${name}`;
      return { type: "postgres", url: url.toString(), poolSize: 4 };
    },
  },
];

/** Sends BODY to `model`; the entry id and status. */
async function send(relay: RelayWithStore, model: string): Promise<{ id: string; status: number }> {
  const response = await post(relay.relay.url, "/v1/chat/completions", { ...BODY, model });
  await response.arrayBuffer();
  return { id: response.headers.get("x-request-id")!, status: response.status };
}

const near = (actual: number | null | undefined, expected: number, what: string) => assert.ok(actual !== null && actual !== undefined && Math.abs(actual - expected) < 1e-9, `${what}: ${actual} ≠ ${expected}`);

/** What the provider's usage of an entry costs at PRICE. */
const usageCost = (entry: JournalEntry) => costOf({ inputTokens: entry.inputTokens ?? 0, cachedInputTokens: entry.cachedInputTokens ?? 0, outputTokens: entry.outputTokens ?? 0 }, PRICE);

for (const backend of BACKENDS) {
  describe(`routed calls' books on ${backend.name}`, () => {
    test("every attempt is journaled with what it was charged; the budget spent what the entries say", async () => {
      const storage = await backend.storage();
      await withRelay(targets.servers.a!.url, routed(storage, [{ id: "watch", scope: "total", period: "total", limit: 1000, mode: "observe" }]), async (relay) => {
        const ids: Record<string, string> = {};
        await targets.script("a", { failFirst: 1, status: 503 });
        ids.unavailable = (await send(relay, "pair")).id;
        await targets.script("a", { failFirst: 1, reset: true });
        ids.reset = (await send(relay, "pair")).id;
        await targets.script("a", { failFirst: 1, delayMs: 3000 });
        ids.timeout = (await send(relay, "pair")).id;
        ids.refused = (await send(relay, "dead-first")).id;
        await targets.script("a", { status: 503 });
        await targets.script("b", { status: 503 });
        const down = await send(relay, "pair");
        assert.equal(down.status, 503);
        ids.down = down.id;

        const entries = await finishedEntries(relay.store, Object.values(ids), 10_000);
        const entry = (name: string) => entries.get(ids[name]!)!;
        const charges = (name: string) => (entry(name).attempts ?? []).map((a) => [`${a.provider}:${a.errorCode ?? a.status}`, a.cost]);
        const served = (name: string) => usageCost(entry(name));

        assert.deepEqual(charges("unavailable"), [["a:upstream_503", 0], ["b:200", served("unavailable")]]);
        assert.deepEqual(charges("reset"), [["a:upstream_reset", BOUND], ["b:200", served("reset")]]);
        assert.deepEqual(charges("timeout"), [["a:upstream_timeout", BOUND], ["b:200", served("timeout")]]);
        assert.deepEqual(charges("refused"), [["dead:upstream_unreachable", 0], ["b:200", served("refused")]]);
        assert.deepEqual(charges("down"), [["a:upstream_503", 0], ["b:upstream_503", 0]]);
        for (const name of Object.keys(ids)) {
          const e = entry(name);
          near(e.cost, (e.attempts ?? []).reduce((sum, a) => sum + (a.cost ?? 0), 0), `${name}: the entry's cost is its attempts'`);
          assert.equal(e.reservedCost, boundFor(e.model!), `${name}: one attempt's bound reserved`);
          for (const a of e.attempts ?? []) assert.ok(a.ms >= 0 && a.upstreamModel === "mock-gpt" && a.model === e.model);
        }
        assert.equal(entry("reset").costEstimated, true);
        assert.equal(entry("unavailable").costEstimated, false);
        assert.equal(entry("reset").provider, "b", "the entry's provider is the one that served");
        assert.equal(entry("down").provider, "b", "a call that failed names the target it last tried");

        const [usage] = await relay.store.budgetUsage([{ budgetId: "watch", period: "total" }]);
        near(usage!.spent, [...entries.values()].reduce((sum, e) => sum + (e.cost ?? 0), 0), "budget spent");
        assert.equal(usage!.reserved, 0);

        const shown = await admin<JournalEntry & { object: string }>(relay.relay.url, "GET", `/journal/${ids.reset}`);
        assert.equal(shown.status, 200);
        assert.deepEqual(shown.body.attempts, entry("reset").attempts);
        assert.equal((await admin(relay.relay.url, "GET", "/journal/no-such-entry")).status, 404);

        // `renio journal show` prints the entry with one line per attempt.
        const configPath = writeConfig(relay.relay.dir, relay.relay.config as unknown as Record<string, unknown>);
        const show = await runRenio(["journal", "show", ids.reset!, "--config", configPath]);
        assert.equal(show.code, 0, show.stderr);
        assert.match(show.stdout, /^served by\s+b mock-gpt/m);
        assert.match(show.stdout, /^attempts\s+2$/m);
        assert.match(show.stdout, new RegExp(`^  1\\. a mock-gpt  status -  upstream_reset  [\\d.]+ ms  cost ${BOUND}$`, "m"));
        assert.match(show.stdout, /^  2\. b mock-gpt  status 200  served  [\d.]+ ms  cost [\d.]+$/m);
        const missing = await runRenio(["journal", "show", "no-such-entry", "--config", configPath]);
        assert.equal(missing.code, 1);
        assert.match(missing.stderr, /no journal entry has the id no-such-entry/);
      });
    });

    test("zero overshoot under a strict budget while half the calls retry (503s and resets)", async () => {
      const storage = await backend.storage();
      const limit = Math.round(BOUND * 20.5 * 1e6) / 1e6;
      await withRelay(targets.servers.a!.url, routed(storage, [{ id: "tight", scope: "total", period: "total", limit, mode: "strict" }]), async (relay) => {
        await targets.script("a", { failPercent: 50, status: 503 });
        const first = await Promise.all(Array.from({ length: 40 }, () => send(relay, "pair")));
        await targets.script("a", { failPercent: 50, reset: true });
        const second = await Promise.all(Array.from({ length: 20 }, () => send(relay, "pair")));
        const third = await Promise.all(Array.from({ length: 20 }, () => send(relay, "pair-room")));
        const calls = [...first, ...second, ...third];
        const admitted = calls.filter((call) => call.status !== 429);
        for (const refused of calls.filter((call) => call.status === 429)) assert.ok(refused.id.length > 0);
        const entries = await finishedEntries(relay.store, admitted.map((call) => call.id), 15_000);
        let settled = 0;
        for (const call of admitted) settled += entries.get(call.id)!.cost ?? 0;
        const retried = first.filter((call) => call.status === 200 && entries.get(call.id)!.attempts!.length === 2);
        assert.ok(retried.length >= 5, `several of the admitted calls retried after a 503 (${retried.length})`);
        // Under a strict budget a reset may have been billed: without room in the reservation it is not retried, and costs its bound.
        for (const call of second.filter((c) => c.status !== 429)) {
          const entry = entries.get(call.id)!;
          if (entry.attempts![0]!.errorCode === "upstream_reset") {
            assert.equal(call.status, 502);
            assert.equal(entry.attempts!.length, 1);
            near(entry.cost, BOUND, "a reset not retried");
          }
        }
        // With retry.billedRetries: 1 the reservation is two bounds and the reset is retried.
        for (const call of third.filter((c) => c.status !== 429)) {
          const entry = entries.get(call.id)!;
          near(entry.reservedCost, 2 * boundFor("pair-room"), "room for one billed retry");
          if (entry.attempts![0]!.errorCode === "upstream_reset") assert.deepEqual(entry.attempts!.map((a) => a.provider), ["a", "b"]);
        }
        const [usage] = await relay.store.budgetUsage([{ budgetId: "tight", period: "total" }]);
        assert.ok(usage!.spent <= limit + 1e-9, `spent ${usage!.spent} ≤ limit ${limit}`);
        near(usage!.spent, settled, "the budget spent what the entries say");
        assert.equal(usage!.reserved, 0);
        assert.ok(calls.some((call) => call.status === 429), "the budget refused calls once full");
        const refusal = calls.find((call) => call.status === 429)!;
        assert.equal((await finishedEntries(relay.store, [refusal.id])).get(refusal.id)!.errorCode, "budget_exceeded");
      });
    });
  });
}
