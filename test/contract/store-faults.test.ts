import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { chmodSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import process from "node:process";
import pg from "pg";
import { createSqlLedger } from "../../src/journal/sql-ledger.ts";
import { StoreUnavailableError } from "../../src/shared/relay-error.ts";
import { StoreOpenError } from "../../src/shared/store-open-error.ts";
import { createStore } from "../../src/storage/store-open.ts";
import type { StorageConfig } from "../../src/config/config-schema.ts";
import { currentRuntime } from "../../src/runtime/current-runtime.ts";
import { journalStart as start } from "../support/journal-fixtures.ts";
import { openSqlite, sqliteConnections, tempDir } from "../support/store-targets.ts";
import { startPostgresCluster, testPostgresUrl } from "../support/postgres.ts";

const runtime = await currentRuntime();

async function openError(storage: StorageConfig, busyTimeoutMs = 100): Promise<string> {
  try {
    const store = await createStore(storage, { durability: "fsync", openSqlite, busyTimeoutMs, connectTimeoutMs: 2000 });
    await store.close();
  } catch (error) {
    assert.ok(error instanceof StoreOpenError, `not a StoreOpenError: ${String(error)}`);
    return error.message;
  }
  assert.fail("the store opened");
}

const sqlitePath = (): string => join(tempDir(), "renio.db");

describe("store faults: sqlite", () => {
  it("sets WAL and synchronous per durability", async () => {
    for (const [durability, level] of [["fsync", 2], ["process", 1]] as const) {
      const store = await createStore({ type: "sqlite", path: sqlitePath() }, { durability, openSqlite });
      const db = sqliteConnections[sqliteConnections.length - 1];
      const pragma = (name: string): unknown[] | undefined => db?.prepare(`pragma ${name}`).all([]).map((row) => ({ ...(row as object) }));
      assert.deepEqual(pragma("synchronous"), [{ synchronous: level }]);
      assert.deepEqual(pragma("journal_mode"), [{ journal_mode: "wal" }]);
      await store.close();
    }
  });

  it("names a corrupt file", async () => {
    const path = sqlitePath();
    writeFileSync(path, "this is not an SQLite database at all\n".repeat(200));
    assert.match(await openError({ type: "sqlite", path }), /corrupt or not a database file/);
  });

  it("names a locked file", async () => {
    const path = sqlitePath();
    await (await createStore({ type: "sqlite", path }, { durability: "fsync", openSqlite })).close();
    const holder = runtime.openSqlite(path);
    holder.exec("begin exclusive");
    try {
      assert.match(await openError({ type: "sqlite", path }), /is locked by another process/);
    } finally {
      holder.exec("rollback");
      holder.close();
    }
  });

  it("names an unwritable path", async () => {
    const file = join(tempDir(), "a-file");
    writeFileSync(file, "x");
    assert.match(await openError({ type: "sqlite", path: join(file, "sub", "renio.db") }), /cannot create the directory/);
  });

  it("names a read-only file", async () => {
    const path = sqlitePath();
    await (await createStore({ type: "sqlite", path }, { durability: "fsync", openSqlite })).close();
    chmodSync(path, 0o444);
    // root ignores permission bits; the immutable attribute stops root too.
    const root = process.getuid?.() === 0;
    if (root) execFileSync("chattr", ["+i", path]);
    try {
      assert.match(await openError({ type: "sqlite", path }), /read-only/);
    } finally {
      if (root) execFileSync("chattr", ["-i", path]);
    }
  });

  it("fails closed while the file cannot be written, and recovers", async () => {
    const ledger = createSqlLedger(await createStore({ type: "sqlite", path: sqlitePath() }, { durability: "fsync", openSqlite }));
    const db = sqliteConnections[sqliteConnections.length - 1];
    assert.ok((await ledger.admit(start(), [])).admitted);
    db?.exec("pragma query_only = 1"); // every write now fails with SQLITE_READONLY
    await assert.rejects(ledger.admit(start(), []), StoreUnavailableError);
    assert.equal(await ledger.ready(), false);
    db?.exec("pragma query_only = 0");
    assert.equal(await ledger.ready(), true);
    assert.ok((await ledger.admit(start(), [])).admitted);
    assert.equal((await ledger.store.listJournal({ limit: 10 })).entries.length, 2);
    await ledger.close();
  });
});

describe("store faults: postgres", () => {
  const base = new URL(testPostgresUrl());
  const pgUrl = (change: (url: URL) => void): StorageConfig => {
    const url = new URL(base);
    change(url);
    return { type: "postgres", url: url.toString(), poolSize: 2 };
  };

  it("names a malformed URL", async () => {
    assert.match(await openError({ type: "postgres", url: "postgres://[oops", poolSize: 1 }), /malformed/);
  });

  it("names an unreachable server", async () => {
    assert.match(await openError(pgUrl((u) => (u.port = "1"))), /cannot reach PostgreSQL at postgres@127\.0\.0\.1:1\/renio: connection refused/);
  });

  it("names a refused login and a missing database, never the password", async () => {
    const login = await openError(pgUrl((u) => ((u.username = "nobody"), (u.password = "s3cret-pw"))));
    assert.match(login, /refused the login for nobody@/);
    assert.doesNotMatch(login, /s3cret-pw/);
    assert.match(await openError(pgUrl((u) => (u.pathname = "/missing_db"))), /database does not exist/);
  });

  it("fails closed while PostgreSQL is down, and is ready again when it returns", async () => {
    const cluster = startPostgresCluster();
    try {
      const store = await createStore({ type: "postgres", url: cluster.url, poolSize: 4 }, { durability: "fsync", openSqlite, connectTimeoutMs: 1000 });
      const ledger = createSqlLedger(store);
      assert.ok((await ledger.admit(start(), [])).admitted);
      cluster.pause();
      await assert.rejects(ledger.admit(start(), []), StoreUnavailableError);
      assert.equal(await ledger.ready(), false);
      cluster.resume();
      assert.equal(await ledger.ready(), true);
      assert.ok((await ledger.admit(start(), [])).admitted);
      await ledger.flush();
      const entries = (await store.listJournal({ limit: 10 })).entries;
      assert.equal(entries.filter((entry) => entry.outcome === "started").length, 2);
      // The call refused as the server went down is recorded only when its statement may have reached it, then as never sent.
      for (const entry of entries.filter((e) => e.outcome !== "started")) assert.deepEqual([entry.outcome, entry.errorCode, entry.cost], ["refused", "store_unavailable", null]);
      await ledger.close();
    } finally {
      cluster.destroy();
    }
  });

  it("an instance takes its liveness lock back after a server restart, so siblings leave its calls alone", async () => {
    const cluster = startPostgresCluster();
    try {
      const storage: StorageConfig = { type: "postgres", url: cluster.url, poolSize: 4 };
      const relay = await createStore(storage, { durability: "fsync", openSqlite, connectTimeoutMs: 1000, instanceId: "relay-a" });
      cluster.pause();
      cluster.resume();
      const sibling = await createStore(storage, { durability: "fsync", openSqlite, instanceId: "relay-b" });
      // Both instances hold their liveness lock again (relay-b's is new; relay-a's was lost in the restart).
      const lockHeld = async () => (await pgLocks(cluster.url)) >= 2;
      const deadline = Date.now() + 10_000;
      while (!(await lockHeld())) {
        assert.ok(Date.now() < deadline, "relay-a re-took its liveness lock within 10 s");
        await new Promise((resolve) => setTimeout(resolve, 100));
      }
      const ledger = createSqlLedger(relay);
      assert.ok((await ledger.admit(start(), [])).admitted);
      assert.equal(await sibling.recover(Date.now()), 0, "relay-a is alive: its call in flight is left alone");
      await ledger.close();
      assert.equal(await sibling.recover(Date.now()), 1, "relay-a is gone: its unfinished call is recovered");
      await sibling.close();
    } finally {
      cluster.destroy();
    }
  });
});

/** Advisory locks currently granted on the cluster at `url` (other than migration locks). */
async function pgLocks(url: string): Promise<number> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    const result = await client.query("select count(*)::int as n from pg_locks where locktype = 'advisory' and granted");
    return (result.rows[0] as { n: number }).n;
  } finally {
    await client.end();
  }
}
