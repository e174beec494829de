import { dropSchema11 } from "../../support/schema-rollback.ts";
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { createSqlLedger } from "../../../src/journal/sql-ledger.ts";
import type { JournalGuardrail } from "../../../src/shared/journal-records.ts";
import { journalStart, okCompletion } from "../../support/journal-fixtures.ts";
import { ledgerKinds, openTestLedger } from "../../support/ledgers.ts";
import { backends, tempDir } from "../../support/store-targets.ts";

/**
 * What guardrail policies found, in the journal: written with the admission (a call refused or
 * interrupted keeps what its request fired), replaced by the completion (request and answer),
 * on every ledger a relay can run (the admission log on SQLite, the SQL ledger on PostgreSQL),
 * across a crash, and after migrating a store of the previous schema.
 */

const REQUEST: JournalGuardrail[] = [{ policy: "pii", on: "request", detector: "email", action: "pseudonymise", count: 2, at: [{ part: "messages[0].content", start: 5, length: 14 }, { part: "system", start: 0, length: 9 }] }];
const BOTH: JournalGuardrail[] = [...REQUEST, { policy: "pii", on: "answer", detector: "iban", action: "redact", count: 1, at: [{ part: "choices[0].content", start: 3, length: 18 }] }];
const FAILED: JournalGuardrail[] = [{ policy: "dlp", on: "request", detector: "webhook", action: "block", count: 1, at: [], error: "timeout" }];

for (const { kind, name, skip } of ledgerKinds) {
  describe(`guardrail findings in the journal: ${name}`, { skip }, () => {
    it("admission, completion, refusal and a crash keep them; the guardrails filter finds exactly those entries", async () => {
      let opened = await openTestLedger(kind, tempDir());
      const completed = journalStart({ guardrails: REQUEST });
      const refused = journalStart({ guardrails: FAILED });
      const interrupted = journalStart({ guardrails: REQUEST });
      const plain = journalStart();
      assert.equal((await opened.ledger.admit(completed, [])).admitted, true);
      assert.equal((await opened.ledger.admit(plain, [])).admitted, true);
      assert.equal((await opened.ledger.admit(interrupted, [])).admitted, true);
      opened.ledger.complete(completed.id, okCompletion({ guardrails: BOTH }), [], 0);
      opened.ledger.complete(plain.id, okCompletion(), [], 0);
      opened.ledger.refuse({ start: refused, status: 503, errorCode: "guardrail_unavailable" });
      await opened.ledger.flush();
      // The process dies with `interrupted` in flight: its admission (and what its request fired) survives.
      opened = await opened.crashAndRestart();
      const { entries } = await opened.store.listJournal({ limit: 100 });
      const byId = new Map(entries.map((entry) => [entry.id, entry]));
      assert.deepEqual(byId.get(completed.id)!.guardrails, BOTH);
      assert.deepEqual(byId.get(refused.id)!.guardrails, FAILED);
      assert.equal(byId.get(refused.id)!.errorCode, "guardrail_unavailable");
      assert.deepEqual(byId.get(interrupted.id)!.guardrails, REQUEST);
      assert.equal(byId.get(interrupted.id)!.outcome, "interrupted");
      assert.equal(byId.get(plain.id)!.guardrails, null);
      const fired = await opened.store.listJournal({ limit: 100, guardrails: true });
      assert.deepEqual(fired.entries.map((e) => e.id).sort(), [completed.id, refused.id, interrupted.id].sort());
      await opened.close();
    });
  });
}

for (const backend of backends) {
  describe(`migration 9 (the guardrails column): ${backend.name}`, () => {
    it("a store of schema 8 is migrated: its entries read back without findings, new ones with", async () => {
      const target = await backend.target();
      const before = createSqlLedger(await target.open());
      const old = journalStart();
      assert.equal((await before.admit(old, [])).admitted, true);
      await before.close();
      // As a store of the previous version left it.
      await dropSchema11((sql) => target.exec(sql));
      await target.exec("drop index journal_entry_guardrails_time");
      await target.exec("alter table journal_entry drop column guardrails");
      await target.exec("alter table journal_entry drop column saved_cost");
      await target.exec("update renio_meta set value = '8' where key = 'schema_version'");
      const store = await target.open();
      const after = createSqlLedger(store);
      const fresh = journalStart({ guardrails: REQUEST });
      assert.equal((await after.admit(fresh, [])).admitted, true);
      const { entries } = await store.listJournal({ limit: 10 });
      assert.equal(entries.find((e) => e.id === old.id)!.guardrails, null);
      assert.deepEqual(entries.find((e) => e.id === fresh.id)!.guardrails, REQUEST);
      assert.deepEqual((await store.listJournal({ limit: 10, guardrails: true })).entries.map((e) => e.id), [fresh.id]);
      await after.close();
    });
  });
}
