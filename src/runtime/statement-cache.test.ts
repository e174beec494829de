import assert from "node:assert/strict";
import { describe, test } from "node:test";
import type { SqliteStatement } from "./runtime.ts";
import { createStatementCache } from "./statement-cache.ts";

/** A cache over a fake driver that records which SQL it prepared. */
function counting(): { prepared: string[]; prepare: (sql: string) => SqliteStatement } {
  const prepared: string[] = [];
  return {
    prepared,
    prepare: (sql) => {
      prepared.push(sql);
      return { reader: false, all: () => [], run: () => ({ changes: 0, lastInsertRowid: 0 }), iterate: () => [][Symbol.iterator]() };
    },
  };
}

describe("createStatementCache", () => {
  test("prepares each SQL text once and returns the same statement after", () => {
    const driver = counting();
    const cache = createStatementCache(driver.prepare);
    const first = cache.prepare("SELECT 1");
    assert.equal(cache.prepare("SELECT 1"), first);
    assert.notEqual(cache.prepare("SELECT 2"), first);
    assert.deepEqual(driver.prepared, ["SELECT 1", "SELECT 2"]);
  });

  test("clear forgets every statement", () => {
    const driver = counting();
    const cache = createStatementCache(driver.prepare);
    const first = cache.prepare("SELECT 1");
    cache.clear();
    assert.notEqual(cache.prepare("SELECT 1"), first);
    assert.deepEqual(driver.prepared, ["SELECT 1", "SELECT 1"]);
  });

  test("is emptied when 256 statements are held and another is asked for", () => {
    const driver = counting();
    const cache = createStatementCache(driver.prepare);
    for (let i = 0; i < 256; i++) cache.prepare(`SELECT ${i}`);
    cache.prepare("SELECT 0");
    assert.equal(driver.prepared.length, 256);
    cache.prepare("SELECT 256");
    cache.prepare("SELECT 0");
    assert.deepEqual(driver.prepared.slice(256), ["SELECT 256", "SELECT 0"]);
  });
});
