import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import type { JournalEntry } from "../../../src/shared/journal-records.ts";
import type { Store } from "../../../src/storage/store.ts";
import type { MockServer, RelayUnderTest } from "../../support/relay-harness.ts";
import { chatBody, mockStats, post } from "../../support/relay-calls.ts";
import { eventually } from "../../support/sse-bytes.ts";
import { startMockRelay } from "../../support/with-relay.ts";

let mock: MockServer;
let relay: RelayUnderTest;
let store: Store;
let stop: () => Promise<void>;

before(async () => {
  ({ mock, relay, store, stop } = await startMockRelay({ config: { budgets: [{ id: "all", scope: "total", period: "total", limit: 100 }] } }));
});

after(() => stop());

test("a client gone before the provider answered: journaled client_aborted (not upstream_reset), reservation settled", async () => {
  const received = (await mockStats(mock.url)).received;
  const controller = new AbortController();
  const pending = post(relay.url, "/v1/chat/completions", chatBody(), { "x-mock-fault": "delay=3000" }, controller.signal);
  assert.ok(await eventually(async () => (await mockStats(mock.url)).received === received + 1), "the call reached the provider");
  controller.abort();
  await assert.rejects(pending);
  let entry: JournalEntry | undefined;
  assert.ok(
    await eventually(async () => {
      entry = (await store.listJournal({ limit: 10 })).entries.find((e) => e.finishedAt !== null);
      return entry !== undefined;
    }),
    "the entry was completed",
  );
  assert.equal(entry!.outcome, "client_aborted");
  assert.equal(entry!.errorCode, "client_aborted");
  assert.equal(entry!.status, 499);
  assert.ok(entry!.reservedCost! > 0);
  assert.equal(entry!.cost, entry!.reservedCost, "the provider may have billed: charged at the reservation");
  const [usage] = await store.budgetUsage([{ budgetId: "all", period: "total" }]);
  assert.deepEqual([usage!.reserved, usage!.spent], [0, entry!.reservedCost]);
  assert.ok(await eventually(async () => (await mockStats(mock.url)).aborted === 1), "the upstream call was aborted too");
});
