import assert from "node:assert/strict";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, test } from "node:test";
import { currentRuntime } from "../../runtime/current-runtime.ts";
import { StoreOpenError } from "../../shared/store-open-error.ts";
import { claimAdmissionLog } from "./log-claim.ts";

const dir = mkdtempSync(join(tmpdir(), "renio-claim-"));
after(() => rmSync(dir, { recursive: true, force: true }));

test("one claim per log directory at a time; released, it can be claimed again", async () => {
  const { openSqlite } = await currentRuntime();
  const database = join(dir, "renio.db");
  const first = claimAdmissionLog(database, openSqlite);
  assert.throws(() => claimAdmissionLog(database, openSqlite), (error: unknown) => {
    assert.ok(error instanceof StoreOpenError);
    assert.match(error.message, /^the SQLite database \S+renio\.db is in use by another Renio relay; one relay owns an SQLite file/);
    return true;
  });
  first.release();
  claimAdmissionLog(database, openSqlite).release();
});
