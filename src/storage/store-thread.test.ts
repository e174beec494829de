import assert from "node:assert/strict";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, describe, it } from "node:test";
import { currentRuntime } from "../runtime/current-runtime.ts";
import { RelayError, StoreUnavailableError } from "../shared/relay-error.ts";
import { SchemaTooNewError } from "./store-errors.ts";
import { latestSchemaVersion } from "./store-migrations.ts";
import { createThreadStore, flattenError, reviveError } from "./store-thread.ts";
import { StoreOpenError } from "../shared/store-open-error.ts";

const runtime = await currentRuntime();
const dir = mkdtempSync(join(tmpdir(), "renio-thread-"));
after(() => rmSync(dir, { recursive: true, force: true }));
let databases = 0;
const sqlitePath = (): string => join(dir, `renio-${++databases}.db`);

/** An error as the main side gets it back from the thread (posted, so structured-cloned). */
const acrossThread = (error: unknown): Error => reviveError(structuredClone(flattenError(error)));

describe("store thread: errors", () => {
  it("revives every kind as the class it was thrown as, with its fields and without a stack", () => {
    const tooNew = acrossThread(new SchemaTooNewError(9, 4));
    assert.ok(tooNew instanceof SchemaTooNewError && tooNew instanceof StoreOpenError);
    assert.deepEqual([tooNew.found, tooNew.supported], [9, 4]);
    assert.match(tooNew.message, /version 9, newer than this Renio supports \(4\)/);

    const notOpened = acrossThread(new StoreOpenError("cannot open the SQLite database x.db"));
    assert.ok(notOpened instanceof StoreOpenError && !(notOpened instanceof SchemaTooNewError));
    assert.equal(notOpened.message, "cannot open the SQLite database x.db");

    const unavailable = acrossThread(new StoreUnavailableError("disk full"));
    assert.ok(unavailable instanceof StoreUnavailableError);
    assert.deepEqual([unavailable.status, unavailable.code, unavailable.message], [503, "store_unavailable", "disk full"]);

    const badQuery = acrossThread(new RelayError(400, "invalid_request", "`until` is not a date"));
    assert.ok(badQuery instanceof RelayError && !(badQuery instanceof StoreUnavailableError));
    assert.deepEqual([badQuery.status, badQuery.code, badQuery.message], [400, "invalid_request", "`until` is not a date"]);

    const driverError = acrossThread(new TypeError("database is locked"));
    assert.deepEqual([driverError.name, driverError.message], ["TypeError", "database is locked"]);
    assert.deepEqual(acrossThread("thrown string").message, "thrown string");

    for (const error of [new SchemaTooNewError(9, 4), new RelayError(400, "invalid_request", "x"), new Error("y")]) {
      const flat = flattenError(error);
      assert.ok(!("stack" in flat) && !/\n\s+at /.test(JSON.stringify(flat)), "no stack crosses the thread");
    }
  });

  it("a real storage thread rejects with the store's own error classes", async () => {
    const blocker = join(dir, "a-file");
    writeFileSync(blocker, "");
    await assert.rejects(createThreadStore(runtime.storeWorker(), { type: "sqlite", path: join(blocker, "renio.db") }, { durability: "process" }), (error: unknown) => {
      assert.ok(error instanceof StoreOpenError && !(error instanceof SchemaTooNewError), `not a StoreOpenError: ${String(error)}`);
      assert.match(error.message, /cannot create the directory of the SQLite database/);
      return true;
    });

    const path = sqlitePath();
    const store = await createThreadStore(runtime.storeWorker(), { type: "sqlite", path }, { durability: "process" });
    await assert.rejects(store.listJournal({ limit: 10, cursor: "not-a-cursor" }), (error: unknown) => {
      assert.ok(error instanceof RelayError, `not a RelayError: ${String(error)}`);
      assert.deepEqual([error.status, error.code], [400, "invalid_request"]);
      assert.match(error.message, /`cursor` is not valid/);
      return true;
    });
    await store.close();

    const db = runtime.openSqlite(path);
    db.exec("pragma busy_timeout = 2000");
    db.exec(`update renio_meta set value = '${latestSchemaVersion + 1}' where key = 'schema_version'`);
    db.close();
    await assert.rejects(createThreadStore(runtime.storeWorker(), { type: "sqlite", path }, { durability: "process" }), (error: unknown) => {
      assert.ok(error instanceof SchemaTooNewError, `not a SchemaTooNewError: ${String(error)}`);
      assert.deepEqual([error.found, error.supported], [latestSchemaVersion + 1, latestSchemaVersion]);
      return true;
    });
  });
});

describe("store thread: requests", () => {
  it("answers an unknown method with a clear error and keeps serving", async () => {
    const worker = runtime.storeWorker();
    const store = await createThreadStore(worker, { type: "sqlite", path: sqlitePath() }, { durability: "process" });
    const reply = new Promise<unknown>((resolve) => {
      worker.addEventListener("message", (event: MessageEvent<{ id: number }>) => {
        if (event.data.id === -1) resolve(event.data);
      });
    });
    worker.postMessage({ id: -1, method: "dropEverything", args: [] });
    assert.deepEqual(await reply, {
      id: -1,
      ok: false,
      error: { kind: "Error", name: "Error", message: 'the storage thread has no method "dropEverything"' },
    });
    assert.equal(await store.ping(), true);
    assert.deepEqual((await store.listJournal({ limit: 10 })).entries, []);
    await store.close();
  });
});
