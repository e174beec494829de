import { dropSchema11 } from "../support/schema-rollback.ts";
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { createSqlLedger } from "../../src/journal/sql-ledger.ts";
import { journalStart, okCompletion } from "../support/journal-fixtures.ts";
import { ledgerKinds, openTestLedger } from "../support/ledgers.ts";
import { backends, tempDir } from "../support/store-targets.ts";

/**
 * A call served from the response cache in the journal: outcome `cache_hit`, cost 0 and the
 * saving kept through every ledger (the admission log on SQLite, the SQL ledger on PostgreSQL),
 * summed by the report, and a store of the previous schema migrated.
 */
for (const { kind, name, skip } of ledgerKinds) {
  describe(`a cache hit in the journal: ${name}`, { skip }, () => {
    it("keeps outcome cache_hit, cost 0 and the saved cost; the report counts it apart from calls sent", async () => {
      const opened = await openTestLedger(kind, tempDir());
      const hit = journalStart();
      const sent = journalStart();
      assert.equal((await opened.ledger.admit(hit, [])).admitted, true);
      assert.equal((await opened.ledger.admit(sent, [])).admitted, true);
      opened.ledger.complete(hit.id, okCompletion({ outcome: "cache_hit", cost: 0, savedCost: 0.0125 }), [], 0);
      opened.ledger.complete(sent.id, okCompletion(), [], 0);
      await opened.ledger.flush();
      const { entries } = await opened.store.listJournal({ limit: 10 });
      const byId = new Map(entries.map((entry) => [entry.id, entry]));
      assert.equal(byId.get(hit.id)!.outcome, "cache_hit");
      assert.equal(byId.get(hit.id)!.cost, 0);
      assert.equal(byId.get(hit.id)!.savedCost, 0.0125);
      assert.equal(byId.get(sent.id)!.savedCost, null);
      const spend = await opened.store.journalSpend({});
      assert.equal(spend.reduce((n, part) => n + part.cacheHits, 0), 1);
      assert.equal(spend.reduce((n, part) => n + part.calls, 0), 1, "a hit is not a call sent to a provider");
      assert.equal(spend.reduce((n, part) => n + part.savedCost, 0), 0.0125);
      await opened.close();
    });
  });
}

for (const backend of backends) {
  describe(`migration 10 (saved_cost): ${backend.name}`, () => {
    it("a store of schema 9 is migrated: its entries read back with no saving, new hits with theirs", async () => {
      const target = await backend.target();
      const before = createSqlLedger(await target.open());
      const old = journalStart();
      assert.equal((await before.admit(old, [])).admitted, true);
      await before.close();
      await dropSchema11((sql) => target.exec(sql));
      await target.exec("alter table journal_entry drop column saved_cost");
      await target.exec("update renio_meta set value = '9' where key = 'schema_version'");
      const store = await target.open();
      const after = createSqlLedger(store);
      const hit = journalStart();
      assert.equal((await after.admit(hit, [])).admitted, true);
      after.complete(hit.id, okCompletion({ outcome: "cache_hit", cost: 0, savedCost: 2 }), [], 0);
      await after.flush();
      const { entries } = await store.listJournal({ limit: 10 });
      assert.equal(entries.find((e) => e.id === old.id)!.savedCost, null);
      assert.equal(entries.find((e) => e.id === hit.id)!.savedCost, 2);
      await after.close();
    });
  });
}
