import assert from "node:assert/strict";
import { describe, it } from "node:test";
import type { JournalEntry } from "../../src/shared/journal-records.ts";
import type { QuarantinedRecord } from "../../src/journal/journal-store.ts";
import { StoreUnavailableError } from "../../src/shared/relay-error.ts";
import { budgetCharge as charge, journalStart as start, okCompletion } from "../support/journal-fixtures.ts";
import { ledgerKinds, openTestLedger, type TestLedger } from "../support/ledgers.ts";
import { allEntries, openStore } from "../support/relay-calls.ts";
import { runJournalCommand } from "../../src/cli/cli-journal.ts";
import { startMockServer, startRelay } from "../support/relay-harness.ts";
import { admin, ADMIN_TOKEN } from "../support/admin-api.ts";
import { tempDir } from "../support/store-targets.ts";

/**
 * One bad record never stops the journal: a record the database refuses is written in its safe
 * form and quarantined, and the records around it are written. Driven through the ledgers a
 * relay uses (the log ledger on a real SQLite file, the SQL ledger on a real PostgreSQL), below
 * the HTTP boundary: the records are handed to the ledger as the relay hands them.
 */

/** Makes the database refuse journal rows whose model holds U+0001 (as an operator's CHECK would; the safe form escapes it). */
async function refuseControlCharacters(t: TestLedger): Promise<void> {
  await t.exec(
    t.kind.startsWith("log-")
      ? "create trigger renio_test_no_control before insert on journal_entry when instr(new.model, char(1)) > 0 begin select raise(abort, 'model holds a control character'); end"
      : `create function renio_test_no_control() returns trigger language plpgsql as $$ begin if strpos(new.model, chr(1)) > 0 then raise exception 'model holds a control character'; end if; return new; end $$;
         create trigger renio_test_no_control before insert on journal_entry for each row execute function renio_test_no_control();`,
  );
}

async function entriesById(t: TestLedger): Promise<Map<string, JournalEntry>> {
  await t.ledger.flush();
  return new Map((await allEntries(t.store)).map((entry) => [entry.id, entry]));
}

async function quarantined(t: TestLedger): Promise<QuarantinedRecord[]> {
  return (await t.store.listQuarantine({ limit: 100 })).records;
}

async function budgetRow(t: TestLedger): Promise<{ reserved: number; spent: number }> {
  await t.ledger.flush();
  const row = (await t.store.budgetUsage()).find((u) => u.budgetId === "b1");
  assert.ok(row, "budget b1 has a row");
  return { reserved: Math.round(row.reserved * 1e9), spent: Math.round(row.spent * 1e9) };
}

/** A refusal as the relay records a call refused before admission (a 404 for an unknown model). */
const refusal = (model: string) => ({ start: start({ model, provider: null, upstreamModel: null }), status: 404, errorCode: "model_not_found" });

for (const { kind, name, skip } of ledgerKinds) {
  if (skip) {
    it(`journal quarantine: ${name}: skipped, ${skip}`, { skip }, () => undefined);
    continue;
  }
  describe(`journal quarantine: ${name}`, () => {
    it("a refusal the database refuses is quarantined and journaled in its safe form; the rest of its batch, and every record after it, is written", async () => {
      const t = await openTestLedger(kind, tempDir(), { untilFlush: true });
      await refuseControlCharacters(t);
      const admitted = start();
      assert.ok((await t.ledger.admit(admitted, [charge(0.4)])).admitted);
      const before = refusal("gpt-unknown");
      const bad = refusal(`x${"\u0001"}y`);
      const after = refusal("gpt-other");
      // One batch: the refusals around the bad one and a completion, written together at the flush.
      t.ledger.refuse(before);
      t.ledger.refuse(bad);
      t.ledger.refuse(after);
      t.ledger.complete(admitted.id, okCompletion({ cost: 0.25 }), [charge(0.4)], 0.25);
      const byId = await entriesById(t);
      assert.deepEqual([before, after].map((r) => byId.get(r.start.id)?.outcome), ["refused", "refused"], "the rest of the batch is written");
      assert.equal(byId.get(admitted.id)?.outcome, "ok", "the completion in the batch is written");
      assert.equal(byId.get(bad.start.id)?.model, "x\\u0001y", "the bad refusal is journaled with its text escaped");
      const [kept, ...others] = await quarantined(t);
      assert.equal(others.length, 0);
      assert.deepEqual([kept?.entryId, kept?.kind, kept?.written], [bad.start.id, "refusal", true]);
      assert.match(kept!.errorCode, /^(SQLITE_CONSTRAINT_TRIGGER|P0001)$/);
      assert.equal((JSON.parse(kept!.record) as { finish: { refusal: { start: { model: string } } } }).finish.refusal.start.model, `x${"\u0001"}y`, "the quarantine keeps the record as it was");
      assert.equal(t.ledger.stats().quarantined.get("refusal"), 1);
      assert.deepEqual(await budgetRow(t), { reserved: 0, spent: 250_000_000 });
      // The journal keeps moving: a call after it is admitted, completed and written.
      const next = start();
      assert.ok((await t.ledger.admit(next, [charge(0.5)])).admitted);
      t.ledger.complete(next.id, okCompletion({ cost: 0.5 }), [charge(0.5)], 0.5);
      assert.equal((await entriesById(t)).get(next.id)?.outcome, "ok");
      assert.deepEqual(await budgetRow(t), { reserved: 0, spent: 750_000_000 });
      await t.close();
    });

    it("an admission the database refuses never holds up the journal: settled exactly in its safe form (log ledger), or refused unsent (SQL ledger)", async () => {
      const t = await openTestLedger(kind, tempDir(), { untilFlush: true });
      await refuseControlCharacters(t);
      const call = start({ model: `m${"\u0001"}`, upstreamModel: `m${"\u0001"}` });
      if (kind.startsWith("postgres-")) {
        // Decided in the database: an admission it refuses is rolled back, so the call is refused and not sent.
        await assert.rejects(t.ledger.admit(call, [charge(0.4)]), StoreUnavailableError);
        assert.equal((await entriesById(t)).has(call.id), false);
      } else {
        // Decided in memory and durable in the admission log: the call goes out, so the database must get its entry.
        assert.ok((await t.ledger.admit(call, [charge(0.4)])).admitted);
        assert.deepEqual(await budgetRow(t), { reserved: 400_000_000, spent: 0 }, "the reservation is in the database with the safe form");
        t.ledger.complete(call.id, okCompletion({ cost: 0.1 }), [charge(0.4)], 0.1);
        const entry = (await entriesById(t)).get(call.id);
        assert.deepEqual([entry?.outcome, entry?.model, entry?.cost], ["ok", "m\\u0001", 0.1]);
        assert.deepEqual(await budgetRow(t), { reserved: 0, spent: 100_000_000 });
        assert.deepEqual((await quarantined(t)).map((q) => [q.kind, q.entryId, q.written]), [["admission", call.id, true]]);
      }
      const next = start();
      assert.ok((await t.ledger.admit(next, [charge(0.3)])).admitted, "the next call is admitted");
      t.ledger.complete(next.id, okCompletion({ cost: 0.3 }), [charge(0.3)], 0.3);
      assert.equal((await entriesById(t)).get(next.id)?.outcome, "ok");
      await t.close();
    });

    it("a database refusing every write is an outage, not a bad record: nothing is quarantined, and what waited is written once it takes writes", async () => {
      const t = await openTestLedger(kind, tempDir(), { untilFlush: true });
      const call = start();
      assert.ok((await t.ledger.admit(call, [charge(0.2)])).admitted);
      t.ledger.complete(call.id, okCompletion({ cost: 0.2 }), [charge(0.2)], 0.2);
      t.ledger.refuse(refusal("gpt-unknown"));
      const heal = await t.refuseDatabaseWrites();
      await assert.rejects(t.ledger.flush());
      assert.deepEqual(await quarantined(t), []);
      await heal();
      const byId = await entriesById(t);
      assert.equal(byId.get(call.id)?.outcome, "ok");
      assert.equal(byId.size, 2);
      assert.deepEqual(await quarantined(t), []);
      await t.close();
    });
  });
}

describe("journal quarantine: a NUL character on PostgreSQL (which refuses it in text)", () => {
  const pg = ledgerKinds.find((k) => k.kind === "postgres-fsync")!;
  it("a refusal whose model holds NUL, and a completion whose stored body does, neither block their batch nor any completion after them", { skip: pg.skip }, async () => {
    const t = await openTestLedger("postgres-fsync", tempDir(), { untilFlush: true });
    const calls = [start(), start(), start()];
    for (const call of calls) assert.ok((await t.ledger.admit(call, [charge(0.2)])).admitted);
    const nul = refusal("x\u0000");
    t.ledger.complete(calls[0]!.id, okCompletion({ cost: 0.1 }), [charge(0.2)], 0.1);
    t.ledger.refuse(nul);
    t.ledger.complete(calls[1]!.id, okCompletion({ cost: 0.15, responseBody: '{"text":"a\u0000b"}' }), [charge(0.2)], 0.15);
    t.ledger.complete(calls[2]!.id, okCompletion({ cost: 0.05 }), [charge(0.2)], 0.05);
    const byId = await entriesById(t);
    assert.deepEqual(calls.map((c) => [byId.get(c.id)?.outcome, byId.get(c.id)?.cost]), [["ok", 0.1], ["ok", 0.15], ["ok", 0.05]], "every completion is written, the one with a NUL in its safe form");
    assert.equal(byId.get(calls[1]!.id)?.responseBody, null, "the safe form leaves the body out");
    assert.deepEqual([byId.get(nul.start.id)?.outcome, byId.get(nul.start.id)?.model], ["refused", "x\\u0000"]);
    assert.deepEqual(await budgetRow(t), { reserved: 0, spent: 300_000_000 }, "nothing left reserved, every cost spent");
    const kept = await quarantined(t);
    assert.deepEqual(kept.map((q) => [q.kind, q.entryId, q.errorCode, q.written]).sort(), [["completion", calls[1]!.id, "22021", true], ["refusal", nul.start.id, "22021", true]].sort());
    for (const q of kept) assert.ok(!q.record.includes("\u0000") && q.record.includes("\\u0000"), "the record is kept with its NUL escaped");
    assert.equal([...byId.values()].filter((e) => e.outcome === "started").length, 0, "no entry left started");
    await t.close();

    // Readable by the operator: renio journal quarantine, and the admin API of a relay on the same database.
    const store = await openStore(t.storage);
    const lines: string[] = [];
    assert.equal(await runJournalCommand(["quarantine"], store, (line) => lines.push(line)), 0);
    assert.match(lines[0]!, /^TIME\s+ENTRY\s+KIND\s+CODE\s+JOURNALED\s+ERROR/);
    assert.ok(lines.some((line) => line.includes(nul.start.id) && /refusal\s+22021\s+safe form/.test(line)), lines.join("\n"));
    await store.close();
    const mock = await startMockServer();
    const relay = await startRelay(mock.url, { storage: t.storage, server: { host: "127.0.0.1", port: 0, shutdownGraceMs: 2000, adminToken: ADMIN_TOKEN } });
    try {
      const { status, body } = await admin<{ data: Array<{ entryId: string; kind: string; record: string }> }>(relay.url, "GET", "/quarantine?limit=1");
      assert.equal(status, 200);
      assert.equal(body.data.length, 1);
      assert.ok(kept.some((q) => q.entryId === body.data[0]!.entryId && q.record === body.data[0]!.record));
    } finally {
      await relay.stop();
      await mock.stop();
    }
  });
});
