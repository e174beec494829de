import assert from "node:assert/strict";
import { join } from "node:path";
import { after, before, describe, test } from "node:test";
import { BUILTIN_PRICES } from "../../../src/pricing/prices-builtin.ts";
import { reservationFor } from "../../../src/pricing/reservation.ts";
import { createSocketFetch } from "../../../src/upstream/socket-fetch.ts";
import { admittedOrRefused, assertNoOvershoot, type StrictCeiling } from "../../support/budget-ceiling.ts";
import { startMockServer, startRelay, TEST_KEY, type MockServer } from "../../support/relay-harness.ts";
import { chatBody, mockStats, openStore } from "../../support/relay-calls.ts";
import { relayConfig, scratchDir, startRelayProcess, writeConfig } from "../../support/relay-process.ts";

/**
 * The budget's promise at thousands of streams: 2,000 streams sent at once, every one in flight
 * together (the mock holds each 3 s before its first byte), at a strict budget covering 500 of
 * them. Exactly the 500 that fit are admitted, and the journal's settled sum stays within the
 * limit: through Renio's socket client, and through the runtime's fetch (what serves high
 * concurrency on Bun, with its in-flight cap raised at start; Deno's fetch on Deno).
 *
 * The calls are sent with Renio's socket client as the HTTP client: the runtime's own fetch in this
 * test process would hold at most 256 in flight on Bun, and the race would not be one.
 */

const STREAMS = 2000;
const COVERED = 500;
const BODY = chatBody({ max_tokens: 1000, stream: true });
const RESERVATION = reservationFor({ requestBytes: new TextEncoder().encode(JSON.stringify(BODY)).byteLength, maxOutputTokens: 1000, price: BUILTIN_PRICES["mock"]!, model: "mock-gpt" }).amount;
/** Covers 500 reservations and half of a 501st. */
const LIMIT = Math.round(RESERVATION * (COVERED + 0.5) * 1e6) / 1e6;
const BUDGETS = [{ id: "race", scope: "total", period: "total", limit: LIMIT, mode: "strict" }];
const CEILING: StrictCeiling = { budgetId: "race", limit: LIMIT, reservation: RESERVATION };
const TIMEOUT = { timeout: 120_000 };

let mock: MockServer;
before(async () => {
  mock = await startMockServer({ chunks: 2, chunkIntervalMs: 1 });
});
after(() => mock.stop());

/** Sends every stream at once through `url`; returns the ids of the admitted ones (each read to its end). */
async function race(url: string): Promise<string[]> {
  const client = createSocketFetch({ maxIdlePerOrigin: 0 });
  const before = (await mockStats(mock.url)).received;
  const body = JSON.stringify(BODY);
  const headers = { authorization: `Bearer ${TEST_KEY}`, "content-type": "application/json", "x-mock-fault": "delay=3000" };
  const results = await Promise.all(
    Array.from({ length: STREAMS }, async () => admittedOrRefused(await client(`${url}/v1/chat/completions`, { method: "POST", headers, body }), CEILING)),
  );
  const accepted = results.filter((result) => result.accepted).map((result) => result.id);
  assert.equal((await mockStats(mock.url)).received - before, accepted.length, "only admitted calls reached the provider");
  return accepted;
}

describe(`${STREAMS} concurrent streams at a strict budget covering ${COVERED}`, () => {
  test("through the socket client: exactly the calls that fit are admitted, the journal's sum within the limit", TIMEOUT, async () => {
    const relay = await startRelay(mock.url, { server: { host: "127.0.0.1", port: 0, shutdownGraceMs: 2000, upstreamClient: "socket" }, budgets: BUDGETS });
    const store = await openStore(relay.config.storage);
    try {
      const accepted = await race(relay.url);
      assert.equal(accepted.length, COVERED, "the number admitted is what fits");
      await assertNoOvershoot(store, accepted, CEILING);
    } finally {
      await store.close();
      await relay.stop();
    }
  });

  test("through the runtime's fetch (a relay process, as `renio serve` runs): the same", TIMEOUT, async () => {
    const dir = scratchDir();
    const storage = { type: "sqlite", path: join(dir, "renio.db") };
    const config = relayConfig(mock.url, storage, { server: { host: "127.0.0.1", port: 0, shutdownGraceMs: 5000, upstreamClient: "fetch" }, budgets: BUDGETS });
    const relay = await startRelayProcess(writeConfig(dir, config));
    const store = await openStore({ type: "sqlite", path: join(dir, "renio.db") });
    try {
      const accepted = await race(relay.url);
      assert.equal(accepted.length, COVERED, "the number admitted is what fits");
      await assertNoOvershoot(store, accepted, CEILING);
    } finally {
      await store.close();
      assert.equal((await relay.stop()).code, 0, relay.output());
    }
  });
});
