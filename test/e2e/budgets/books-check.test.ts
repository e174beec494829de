import assert from "node:assert/strict";
import { writeFileSync } from "node:fs";
import process from "node:process";
import { join } from "node:path";
import { after, before, describe, it } from "node:test";
import { driftingRows, reservedDrift, spentDrift, type BooksCheck } from "../../../src/budgets/books-check.ts";
import { runBudgetAdminCommand } from "../../../src/cli/cli-store.ts";
import { currentRuntime } from "../../../src/runtime/current-runtime.ts";
import { budgetCharge as charge, journalStart as start, okCompletion } from "../../support/journal-fixtures.ts";
import { ledgerKinds, openTestLedger, type TestLedger } from "../../support/ledgers.ts";
import { ADMIN_TOKEN } from "../../support/admin-api.ts";
import { Scrape } from "../../support/prom-scrape.ts";
import { startMockServer, startRelay, type MockServer } from "../../support/relay-harness.ts";
import { chatBody, post } from "../../support/relay-calls.ts";
import { eventually } from "../../support/sse-bytes.ts";
import { tempDir } from "../../support/store-targets.ts";

/**
 * The books' invariant checked while serving: every budget row's reserved equals the
 * reservations of the entries holding one, its spent the cost of its finished entries (plus what
 * retention deleted). Checked on every ledger a relay uses while calls are admitted and settled
 * around the check, then against a tampered row; through `renio budget check` (--config and
 * --url) and on /metrics.
 */

const runtime = await currentRuntime();
const cleanups: Array<() => void> = [];

/** Runs `count` calls, `concurrency` at a time: most completed, some left open, some over budget. */
async function load(t: TestLedger, count: number, concurrency: number): Promise<void> {
  let next = 0;
  const worker = async (): Promise<void> => {
    for (let i = next++; i < count; i = next++) {
      const call = start();
      const amount = 0.001 + (i % 5) * 0.0007;
      const charges = [charge(amount, { limit: 0.5 }), charge(amount, { budgetId: "b-observe", mode: "observe", limit: 0.1 })];
      const admission = await t.ledger.admit(call, charges);
      if (!admission.admitted || i % 7 === 3) continue;
      t.ledger.complete(call.id, okCompletion({ cost: amount / 3 }), charges, amount / 3);
      // Let other calls in between, as real calls take time.
      await new Promise<void>((resolve) => setTimeout(resolve, i % 3));
    }
  };
  await Promise.all(Array.from({ length: concurrency }, worker));
}

function assertHolds(check: BooksCheck, when: string): void {
  const drifting = driftingRows(check).map((row) => `${row.budgetId}/${row.period}: reserved ${reservedDrift(row)}, spent ${spentDrift(row)} nanos`);
  assert.deepEqual(drifting, [], `the books hold ${when}`);
}

for (const { kind, name, skip } of ledgerKinds) {
  if (skip) {
    it(`books check: ${name}: skipped, ${skip}`, { skip }, () => undefined);
    continue;
  }
  describe(`books check: ${name}`, () => {
    it("holds in every check taken while calls are admitted and settled around it, and names a row changed behind the journal's back", async () => {
      const t = await openTestLedger(kind, tempDir());
      const checks: BooksCheck[] = [];
      let loading = true;
      const checking = (async () => {
        while (loading) checks.push(await t.store.checkBooks());
      })();
      await load(t, 400, 16);
      loading = false;
      await checking;
      assert.ok(checks.length >= 3, `checked while loading (${checks.length})`);
      checks.forEach((check, i) => assertHolds(check, `in check ${i} of ${checks.length}, taken under load`));
      await t.ledger.flush();
      const settled = await t.store.checkBooks();
      assertHolds(settled, "once settled");
      assert.ok(settled.openEntries > 0 && settled.finishedEntries > 0, "open calls and finished ones were both checked");
      const row = settled.rows.find((r) => r.budgetId === "b1")!;
      assert.ok(row.reservedNanos > 0 && row.reservedNanos === row.journalReservedNanos, "the calls left open hold exactly what b1 holds reserved");

      await t.exec("update budget_usage set spent_nanos = spent_nanos + 7 where budget_id = 'b1'");
      await t.exec("update budget_usage set reserved_nanos = reserved_nanos - 3 where budget_id = 'b-observe'");
      const tampered = await t.store.checkBooks();
      const drift = driftingRows(tampered).map((r) => [r.budgetId, reservedDrift(r), spentDrift(r)]);
      assert.deepEqual(drift.sort(), [["b-observe", -3, 0], ["b1", 0, 7]]);
      await t.close();
    });

    it("holds after retention deleted finished entries (their cost stays on the row as pruned)", async () => {
      const t = await openTestLedger(kind, tempDir());
      await load(t, 60, 4);
      await t.ledger.flush();
      const deleted = await t.store.pruneJournal(new Date(Date.now() + 60_000), 1000);
      assert.ok(deleted > 0, "retention deleted entries");
      const check = await t.store.checkBooks();
      assertHolds(check, "after retention");
      assert.ok(check.rows.find((r) => r.budgetId === "b1")!.prunedNanos > 0);
      await t.close();
    });
  });
}

describe("renio budget check", () => {
  let mock: MockServer;
  before(async () => {
    mock = await startMockServer();
  });
  after(async () => {
    await mock.stop();
  });

  it("--config and --url: exit 0 while the books hold, 1 naming the row once one drifts; /metrics shows it within a check", async () => {
    const relay = await startRelay(mock.url, {
      server: { host: "127.0.0.1", port: 0, shutdownGraceMs: 2000, adminToken: ADMIN_TOKEN },
      budgets: [{ id: "all", scope: "total", period: "total", limit: 10 }],
      journal: { booksCheckMs: 100 },
    });
    try {
      for (let i = 0; i < 5; i++) assert.equal((await post(relay.url, "/v1/chat/completions", chatBody())).status, 200);
      const configPath = join(relay.dir, "renio.json");
      writeFileSync(configPath, JSON.stringify({ storage: relay.config.storage, models: {}, providers: {} }));
      const run = async (args: string[]): Promise<{ code: number; text: string }> => {
        // stdout only: stderr first names the target (a relay or a store), then any problem.
        const lines: string[] = [];
        const code = await runBudgetAdminCommand("budget", args, runtime, (l) => lines.push(l), () => {});
        return { code, text: lines.join("\n") };
      };
      // The admin token for --url, put back afterwards: child relays of later tests read RENIO_* variables.
      const previous = process.env["RENIO_ADMIN_TOKEN"];
      process.env["RENIO_ADMIN_TOKEN"] = ADMIN_TOKEN;
      cleanups.push(() => {
        if (previous === undefined) delete process.env["RENIO_ADMIN_TOKEN"];
        else process.env["RENIO_ADMIN_TOKEN"] = previous;
      });
      // The relay applies what it logged before the admin API reads; the CLI on the file sees it once applied.
      let held = await run(["check", "--url", relay.url]);
      assert.equal(held.code, 0, held.text);
      assert.match(held.text, /the books hold: 1 budget row/);
      assert.ok(await eventually(async () => (held = await run(["check", "--config", configPath])).code === 0 && /\b5 finished entries/.test(held.text), 5_000), held.text);

      const db = runtime.openSqlite(join(relay.dir, "renio.db"));
      try {
        db.exec("pragma busy_timeout = 5000");
        db.exec("update budget_usage set spent_nanos = spent_nanos + 1000 where budget_id = 'all'");
      } finally {
        db.close();
      }
      const drifted = await run(["check", "--config", configPath, "--json"]);
      assert.equal(drifted.code, 1);
      const report = JSON.parse(drifted.text) as { ok: boolean; rows: Array<{ budgetId: string; spentDrift: number }> };
      assert.deepEqual([report.ok, report.rows.map((r) => [r.budgetId, r.spentDrift])], [false, [["all", 0.000001]]]);
      const overHttp = await run(["check", "--url", relay.url]);
      assert.equal(overHttp.code, 1);
      assert.match(overHttp.text, /DRIFT in 1 budget row/);
      let scrape: Scrape | undefined;
      const metrics = async () => (scrape = new Scrape(await (await fetch(`${relay.url}/metrics`, { headers: { authorization: `Bearer ${ADMIN_TOKEN}` } })).text()));
      assert.ok(await eventually(async () => (await metrics()).sum("renio_books_drifting_rows") === 1, 5_000), "the periodic check sees the drift");
      assert.equal(scrape!.sum("renio_books_drift", { budget: "all", side: "spent" }), 0.000001);
    } finally {
      for (const cleanup of cleanups.splice(0)) cleanup();
      await relay.stop();
    }
  });
});
