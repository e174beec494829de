import assert from "node:assert/strict";
import { join } from "node:path";
import { after, describe, it } from "node:test";
import type { StorageConfig } from "../../src/config/config-schema.ts";
import { createSqlLedger, type SqlLedger } from "../../src/journal/sql-ledger.ts";
import { StoreUnavailableError } from "../../src/shared/relay-error.ts";
import type { JournalEntry } from "../../src/shared/journal-records.ts";
import type { Store } from "../../src/storage/store.ts";
import { budgetCharge as charge, journalStart as start, okCompletion } from "../support/journal-fixtures.ts";
import { startPgFaultProxy, type PgFaultProxy } from "../support/pg-fault-proxy.ts";
import { allEntries, openStore } from "../support/relay-calls.ts";
import { eventually } from "../support/sse-bytes.ts";
import { backends, pgExec, tempDir } from "../support/store-targets.ts";
import { startPostgresCluster } from "../support/postgres.ts";
import { createStore } from "../../src/storage/store-open.ts";
import { currentRuntime } from "../../src/runtime/current-runtime.ts";
import { openTestLedger } from "../support/ledgers.ts";
import { admissionLogDir, readJournalLog } from "../../src/journal/admission-log/log-segments.ts";

/**
 * An admission whose commit's outcome is unknown is settled, not leaked. A fault-injecting proxy
 * between the SQL ledger and a real PostgreSQL loses the reply of an admission's commit (after
 * it landed, or by cutting the connection before it arrives), or stalls it past the ledger's
 * deadline; the call is refused (503, not sent) and, with no restart, its entry ends refused at
 * cost 0 with its reservation released.
 */

const runtime = await currentRuntime();
const proxies: PgFaultProxy[] = [];
after(async () => {
  for (const proxy of proxies) await proxy.close();
});

/** A fresh database on the test cluster, a proxy in front of it, and a ledger through the proxy. */
async function ledgerBehindProxy(options: { admitTimeoutMs?: number } = {}): Promise<{ ledger: SqlLedger<Store>; proxy: PgFaultProxy; direct: () => Promise<Store> }> {
  const { storage } = await backends.find((backend) => backend.name === "postgres")!.target();
  if (storage.type !== "postgres") throw new Error("no PostgreSQL URL");
  const proxy = await startPgFaultProxy(storage.url);
  proxies.push(proxy);
  const through: StorageConfig = { ...storage, url: proxy.url };
  const ledger = createSqlLedger(await openStore(through), { finishRetryMs: 50, ...options });
  return { ledger, proxy, direct: () => openStore(storage) };
}

async function entry(store: Store, id: string): Promise<JournalEntry | undefined> {
  return (await allEntries(store)).find((e) => e.id === id);
}

async function reserved(store: Store, budgetId = "b1"): Promise<number> {
  const row = (await store.budgetUsage()).find((u) => u.budgetId === budgetId);
  return Math.round((row?.reserved ?? 0) * 1e9);
}

/** Waits (bounded) until the entry `id` is finished in `store`, and returns it. */
async function settled(store: Store, id: string): Promise<JournalEntry> {
  let found: JournalEntry | undefined;
  assert.ok(await eventually(async () => (found = await entry(store, id))?.finishedAt != null, 10_000), `entry ${id} is settled without a restart`);
  return found!;
}

/** First call through a ledger: creates the budget row (the transaction path); the calls after it fit in one statement. */
async function warmUp(ledger: SqlLedger<Store>): Promise<void> {
  const first = start();
  assert.ok((await ledger.admit(first, [charge(0.1)])).admitted);
  ledger.complete(first.id, okCompletion({ cost: 0.1 }), [charge(0.1)], 0.1);
  await ledger.flush();
}

describe("an admission whose commit's outcome is unknown (PostgreSQL)", () => {
  for (const path of ["one statement", "transaction"] as const) {
    it(`${path}: the commit landed but its reply was lost: the call is refused, and its entry settles refused at cost 0 with its reservation released`, async () => {
      const { ledger, proxy, direct } = await ledgerBehindProxy();
      if (path === "one statement") await warmUp(ledger);
      const call = start();
      const lost = proxy.dropNextCommit({ reachesServer: true });
      await assert.rejects(ledger.admit(call, [charge(0.4)]), StoreUnavailableError);
      await lost;
      const store = await direct();
      const settledEntry = await settled(store, call.id);
      assert.deepEqual([settledEntry.outcome, settledEntry.status, settledEntry.errorCode, settledEntry.cost], ["refused", 503, "store_unavailable", 0]);
      assert.equal(await reserved(store), 0, "its reservation is released");
      assert.equal((await allEntries(store)).filter((e) => e.outcome === "started").length, 0, "no entry left started");
      // The journal goes on: the next call is admitted and settles.
      const next = start();
      assert.ok((await ledger.admit(next, [charge(0.4)])).admitted);
      ledger.complete(next.id, okCompletion({ cost: 0.3 }), [charge(0.4)], 0.3);
      assert.equal((await settled(store, next.id)).outcome, "ok");
      await ledger.close();
      await store.close();
    });
  }

  it("the connection was cut before the commit arrived: the call is refused and recorded as such (a late commit of it could not land)", async () => {
    const { ledger, proxy, direct } = await ledgerBehindProxy();
    await warmUp(ledger);
    const call = start();
    const cut = proxy.dropNextCommit({ reachesServer: false });
    await assert.rejects(ledger.admit(call, [charge(0.4)]), StoreUnavailableError);
    await cut;
    const store = await direct();
    const settledEntry = await settled(store, call.id);
    assert.deepEqual([settledEntry.outcome, settledEntry.errorCode, settledEntry.reservedCost], ["refused", "store_unavailable", null]);
    assert.equal(await reserved(store), 0);
    await ledger.close();
    await store.close();
  });

  it("a commit stalled past the deadline: the call is refused at the deadline; when the stalled commit lands later, its entry is settled, not left started", async () => {
    const { ledger, proxy, direct } = await ledgerBehindProxy({ admitTimeoutMs: 2000 });
    await warmUp(ledger);
    const call = start();
    const stall = proxy.stallNextCommit();
    const admitted = ledger.admit(call, [charge(0.4)]).then(
      () => assert.fail("admitted while its commit was stalled"),
      (error: unknown) => assert.ok(error instanceof StoreUnavailableError, String(error)),
    );
    await stall.stalled;
    await admitted;
    // The settlement waits for the stalled commit (the same id is being inserted), then finds it landed.
    stall.release();
    const store = await direct();
    const settledEntry = await settled(store, call.id);
    assert.deepEqual([settledEntry.outcome, settledEntry.errorCode, settledEntry.cost], ["refused", "store_unavailable", 0]);
    assert.equal(await reserved(store), 0);
    await ledger.close();
    await store.close();
  });

  it("graceful shutdown right after a lost reply: closing settles the entry before the store closes", async () => {
    const { ledger, proxy, direct } = await ledgerBehindProxy();
    await warmUp(ledger);
    const call = start();
    const lost = proxy.dropNextCommit({ reachesServer: true });
    await assert.rejects(ledger.admit(call, [charge(0.4)]), StoreUnavailableError);
    await lost;
    await ledger.close();
    const store = await direct();
    const closed = await entry(store, call.id);
    assert.deepEqual([closed?.outcome, closed?.errorCode, closed?.cost], ["refused", "store_unavailable", 0]);
    assert.equal(await reserved(store), 0);
    await store.close();
  });
});

describe("an admission whose log write failed (SQLite)", () => {
  it("the call is refused and its reservation given back; the next log write carries its unsent record, so a replay settles it as not sent", async () => {
    const dir = tempDir();
    const t = await openTestLedger("log-fsync", dir);
    assert.ok((await t.ledger.admit(start(), [charge(0.2)])).admitted);
    await t.breakAdmissionWrite();
    const failed = start();
    await assert.rejects(t.ledger.admit(failed, [charge(0.5)]), StoreUnavailableError);
    assert.ok((await t.ledger.admit(start(), [charge(0.5)])).admitted, "the refused call's 0.5 was given back");
    const unsent = readJournalLog(admissionLogDir(join(dir, "renio.db"))).lines.filter((line) => line.includes('"kind":"unsent"'));
    assert.equal(unsent.length, 1, "one unsent record in the log");
    assert.ok(unsent[0]!.includes(failed.id));
    await t.ledger.flush();
    assert.equal((await allEntries(t.store)).some((e) => e.id === failed.id), false, "never in the journal: it never reached the database");
    await t.close();
  });
});

describe("completions a PostgreSQL crash takes back (committed without waiting for the disk)", () => {
  it("are written again once the server is back, so their entries do not stay started while the relay runs", async () => {
    const cluster = startPostgresCluster();
    try {
      // The WAL writer flushes asynchronous commits at most every 10 s: until then a crash loses them.
      await pgExec(cluster.url, "alter system set wal_writer_delay = '10000ms'");
      await pgExec(cluster.url, "select pg_reload_conf()");
      const storage: StorageConfig = { type: "postgres", url: cluster.url, poolSize: 2 };
      const ledger = createSqlLedger(await createStore(storage, { durability: "fsync", openSqlite: runtime.openSqlite, connectTimeoutMs: 1000 }), { finishRetryMs: 50 });
      const call = start();
      assert.ok((await ledger.admit(call, [charge(0.4)])).admitted);
      ledger.complete(call.id, okCompletion({ cost: 0.3 }), [charge(0.4)], 0.3);
      await ledger.flush();
      cluster.pause();
      // A readiness probe while the server is down (a load balancer's, every few seconds).
      assert.equal(await ledger.ready(), false);
      cluster.resume();
      assert.ok(await eventually(() => ledger.ready(), 20_000), "ready again");
      await ledger.flush();
      const store = await openStore(storage);
      const entry = (await allEntries(store)).find((e) => e.id === call.id);
      assert.deepEqual([entry?.outcome, entry?.cost], ["ok", 0.3], "the completion the crash took back is written again");
      assert.equal(await reserved(store), 0);
      await store.close();
      await ledger.close();
    } finally {
      cluster.destroy();
    }
  });
});
