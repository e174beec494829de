import assert from "node:assert/strict";
import pg from "pg";
import { after, describe, it } from "node:test";
import type { StorageConfig } from "../../../src/config/config-schema.ts";
import { driftingRows } from "../../../src/budgets/books-check.ts";
import type { Store } from "../../../src/storage/store.ts";
import { startPgFaultProxy, type PgFaultProxy } from "../../support/pg-fault-proxy.ts";
import { startPostgresCluster } from "../../support/postgres.ts";
import { startMockServer, startRelay, type MockServer, type RelayUnderTest } from "../../support/relay-harness.ts";
import { allEntries, chatBody, mockStats, openStore, post } from "../../support/relay-calls.ts";
import { eventually } from "../../support/sse-bytes.ts";
import { backends } from "../../support/store-targets.ts";

/**
 * Faults between a relay and PostgreSQL under load: a connection dropped right after a COMMIT
 * (the admission's commit landed, its reply lost), a commit stalled, and the server stopped with
 * `pg_ctl stop -m immediate` and started again. After each, once the load is answered: no entry
 * left started (no call is in flight), the books' invariant holds, and nothing the provider did
 * not see is charged (the mock's count of calls received against the journal).
 */

/** The one-statement admission (its text names the `want` rows). */
const ADMISSION = /with want/;
const CLIENTS = 8;

const cleanups: Array<() => Promise<void>> = [];
after(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

/** Calls the relay from `CLIENTS` clients until stopped; counts the answers by status. */
function startLoad(relay: RelayUnderTest) {
  const statuses = new Map<number, number>();
  let running = true;
  let answered = 0;
  const client = async (): Promise<void> => {
    while (running) {
      const response = await post(relay.url, "/v1/chat/completions", chatBody());
      await response.arrayBuffer();
      statuses.set(response.status, (statuses.get(response.status) ?? 0) + 1);
      answered++;
    }
  };
  const clients = Promise.all(Array.from({ length: CLIENTS }, client));
  return {
    statuses,
    get answered() {
      return answered;
    },
    /** Resolves once `count` more calls than now were answered (bounded). */
    async more(count: number, timeoutMs = 20_000): Promise<void> {
      const until = answered + count;
      assert.ok(await eventually(() => answered >= until, timeoutMs), `${count} more calls answered (${answered} of ${until})`);
    },
    async stop(): Promise<void> {
      running = false;
      await clients;
    },
  };
}

/** The relay, its mock, and a store on the same database (not through any proxy). */
async function relayOn(storage: StorageConfig, direct: StorageConfig): Promise<{ relay: RelayUnderTest; mock: MockServer; store: Store }> {
  const mock = await startMockServer();
  const relay = await startRelay(mock.url, { storage, budgets: [{ id: "all", scope: "total", period: "total", limit: 1000 }], journal: { booksCheckMs: 0 } });
  const store = await openStore(direct);
  cleanups.push(async () => {
    await store.close();
    await relay.stop();
    await mock.stop();
  });
  return { relay, mock, store };
}

/**
 * The books after a fault, once the load is answered: nothing started, the invariant holding,
 * every charged entry one the provider served, as many served entries as calls the mock received
 * and 200s the clients got. Returns how the fault's calls ended, for the run's record.
 */
async function assertBooks(store: Store, mock: MockServer, statuses: ReadonlyMap<number, number>): Promise<string> {
  assert.ok(await eventually(async () => !(await allEntries(store)).some((e) => e.outcome === "started"), 20_000), "no entry left started without a call in flight");
  const entries = await allEntries(store);
  const check = await store.checkBooks();
  assert.deepEqual(driftingRows(check), [], "the books' invariant holds");
  assert.ok(check.rows.every((row) => row.reservedNanos === 0), "nothing left reserved");
  const served = entries.filter((e) => e.outcome !== "refused");
  assert.deepEqual([...new Set(served.map((e) => e.outcome))], ["ok"], "every call that reached the provider was served");
  const received = (await mockStats(mock.url)).received;
  assert.equal(served.length, received, "as many journaled calls as the provider received");
  assert.equal(statuses.get(200) ?? 0, received, "as many 200s as calls the provider received");
  const charged = entries.filter((e) => (e.cost ?? 0) > 0);
  assert.ok(charged.every((e) => e.outcome === "ok"), "only calls the provider served are charged");
  const refused = entries.filter((e) => e.outcome === "refused");
  assert.ok(refused.every((e) => e.errorCode === "store_unavailable" && (e.cost ?? 0) === 0), "the calls refused are refused unsent, at no cost");
  const other = [...statuses.keys()].filter((status) => status !== 200 && status !== 503);
  assert.deepEqual(other, [], "every call was served or refused (503, not sent)");
  return `${received} served, ${statuses.get(503) ?? 0} refused 503 (${refused.length} of them journaled, settled unsent)`;
}

async function databaseBehindProxy(): Promise<{ proxy: PgFaultProxy; storage: StorageConfig; direct: StorageConfig }> {
  const { storage } = await backends.find((backend) => backend.name === "postgres")!.target();
  if (storage.type !== "postgres") throw new Error("no PostgreSQL URL");
  const proxy = await startPgFaultProxy(storage.url);
  cleanups.push(() => proxy.close());
  return { proxy, storage: { ...storage, url: proxy.url, poolSize: 4 }, direct: storage };
}

/** Counts the sessions of the database waiting on a lock (pg_stat_activity). */
async function waitingOnLocks(storage: StorageConfig): Promise<() => Promise<number>> {
  if (storage.type !== "postgres") throw new Error("no PostgreSQL URL");
  const client = new pg.Client({ connectionString: storage.url });
  await client.connect();
  cleanups.push(() => client.end());
  return async () => Number((await client.query<{ n: string }>("select count(*) as n from pg_stat_activity where datname = current_database() and wait_event_type = 'Lock'")).rows[0]?.n ?? 0);
}

describe("PostgreSQL faults under load", () => {
  it("connections dropped right after forwarding admissions' COMMITs (landed, reply lost) and completions' COMMITs", async () => {
    const { proxy, storage, direct } = await databaseBehindProxy();
    const { relay, mock, store } = await relayOn(storage, direct);
    const load = startLoad(relay);
    await load.more(40);
    for (const of of [ADMISSION, ADMISSION, /update "?journal_entry/]) {
      await proxy.dropNextCommit({ reachesServer: true, of });
      await load.more(20);
    }
    await proxy.dropNextCommit({ reachesServer: false, of: ADMISSION });
    await load.more(20);
    await load.stop();
    const outcome = await assertBooks(store, mock, load.statuses);
    assert.ok((load.statuses.get(503) ?? 0) >= 1, "an admission whose reply was lost was refused");
    process.stderr.write(`  fault run (drop after COMMIT): ${outcome}\n`);
  });

  it("an admission's COMMIT stalled while the load queues behind it, then released", async () => {
    const { proxy, storage, direct } = await databaseBehindProxy();
    const { relay, mock, store } = await relayOn(storage, direct);
    const load = startLoad(relay);
    await load.more(40);
    const stall = proxy.stallNextCommit(ADMISSION);
    await stall.stalled;
    // The load queues behind it: the stalled admission holds the budget row, so the completions settling it wait on its lock.
    const waiting = await waitingOnLocks(direct);
    assert.ok(await eventually(async () => (await waiting()) > 0, 10_000), "writes wait behind the stalled commit");
    stall.release();
    await load.more(40);
    await load.stop();
    const outcome = await assertBooks(store, mock, load.statuses);
    assert.equal(load.statuses.get(503) ?? 0, 0, "a stall shorter than the admission deadline refuses nothing");
    process.stderr.write(`  fault run (stalled COMMIT): ${outcome}\n`);
  });

  it("the server stopped with pg_ctl stop -m immediate under load, and started again on the same data and port", async () => {
    const cluster = startPostgresCluster();
    cleanups.push(() => Promise.resolve(cluster.destroy()));
    const storage: StorageConfig = { type: "postgres", url: cluster.url, poolSize: 4 };
    const { relay, mock, store: first } = await relayOn(storage, storage);
    const load = startLoad(relay);
    await load.more(40);
    cluster.pause();
    await load.more(20, 30_000);
    cluster.resume();
    assert.ok(await eventually(async () => (await fetch(`${relay.url}/readyz`)).status === 200, 20_000), "ready again once the server is back");
    const served = load.statuses.get(200) ?? 0;
    assert.ok(await eventually(() => (load.statuses.get(200) ?? 0) >= served + 20, 20_000), "serving again");
    await load.stop();
    // The store opened before the restart reconnects on its own.
    const outcome = await assertBooks(first, mock, load.statuses);
    assert.ok((load.statuses.get(503) ?? 0) >= 1, "calls were refused while the server was down");
    process.stderr.write(`  fault run (immediate stop and restart): ${outcome}\n`);
  });
});
