import assert from "node:assert/strict";
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { test } from "node:test";
import { currentRuntime } from "../runtime/current-runtime.ts";
import { sqliteCacheStore } from "./cache-store.ts";

const bytes = (size: number, fill: number) => new Uint8Array(size).fill(fill);

test("the SQLite store: an entry expires after its TTL; past the total bound the oldest entries go first", async () => {
  const runtime = await currentRuntime();
  let now = 1_000_000;
  const path = join(mkdtempSync(join(tmpdir(), "renio-cache-store-")), "cache.db");
  const store = sqliteCacheStore(runtime.openSqlite(path), 250, () => now);
  try {
    await store.put("a", bytes(100, 1), 60_000);
    assert.deepEqual(await store.get("a"), bytes(100, 1));
    now += 60_000;
    assert.equal(await store.get("a"), null, "expired at its TTL");
    await store.put("b", bytes(100, 2), 60_000);
    now += 1;
    await store.put("c", bytes(100, 3), 60_000);
    now += 1;
    await store.put("d", bytes(100, 4), 60_000);
    assert.equal(await store.get("b"), null, "the oldest went to keep the total under 250 bytes");
    assert.deepEqual(await store.get("c"), bytes(100, 3));
    assert.deepEqual(await store.get("d"), bytes(100, 4));
  } finally {
    await store.close();
  }
  // Entries survive a restart of the relay.
  const reopened = sqliteCacheStore(runtime.openSqlite(path), 250, () => now);
  try {
    assert.deepEqual(await reopened.get("d"), bytes(100, 4));
  } finally {
    await reopened.close();
  }
});
