import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { join } from "node:path";
import type { BudgetConfig } from "../../src/config/config-schema.ts";
import { runBudgetCommand } from "../../src/cli/cli-budget.ts";
import { runJournalCommand } from "../../src/cli/cli-journal.ts";
import { periodOf } from "../../src/budgets/budget-plan.ts";
import { createSqlLedger } from "../../src/journal/sql-ledger.ts";
import { createStore } from "../../src/storage/store-open.ts";
import { openSqlite, tempDir } from "../support/store-targets.ts";

async function seeded() {
  const store = await createStore({ type: "sqlite", path: join(tempDir(), "renio.db") }, { durability: "process", openSqlite });
  const ledger = createSqlLedger(store);
  const period = periodOf("month", new Date());
  const charge = { budgetId: "team", period, limit: 10, mode: "strict" as const, amount: 2 };
  const now = Date.now();
  for (let i = 0; i < 5; i++) {
    const id = `r${i}`;
    await ledger.admit({ id, receivedAt: now - i * 60_000, requestId: null, keyId: i % 2 ? "alice" : "bob", project: "p", route: "/v1/chat/completions", model: "gpt, \"x\"", provider: "mock", upstreamModel: null, stream: false, requestBytes: 10, clientAddress: "127.0.0.1", requestBody: null }, [charge]);
    if (i < 3) ledger.complete(id, { outcome: "ok", status: 200, ttfbMs: 1, totalMs: 3, upstreamMs: 2, usage: { inputTokens: 4, cachedInputTokens: 0, outputTokens: 6 }, cost: 0.5, errorCode: null, responseBody: null }, [charge], 0.5);
  }
  await ledger.flush();
  return { store, ledger };
}

const budgets: BudgetConfig[] = [
  { id: "team", scope: { project: "p" }, period: "month", limit: 10, mode: "strict" },
  { id: "all", scope: "total", period: "total", limit: 100 },
];

describe("journal and budget commands", () => {
  it("lists as a table and as JSON, with filters", async () => {
    const { store, ledger } = await seeded();
    const lines: string[] = [];
    assert.equal(await runJournalCommand(["list", "--key", "alice", "--since", "1h"], store, (l) => lines.push(l)), 0);
    assert.match(lines[0] ?? "", /^TIME\s+ID\s+KEY/);
    assert.equal(lines.length, 3);
    const json: string[] = [];
    assert.equal(await runJournalCommand(["list", "--outcome=started", "--limit", "1", "--json"], store, (l) => json.push(l)), 0);
    assert.deepEqual((JSON.parse(json.join("\n")) as Array<{ id: string }>).map((e) => e.id), ["r3"]);
    await ledger.close();
  });

  it("exports every page as jsonl or csv", async () => {
    const { store, ledger } = await seeded();
    const jsonl: string[] = [];
    assert.equal(await runJournalCommand(["export", "--format", "jsonl"], store, (l) => jsonl.push(l)), 0);
    assert.deepEqual(jsonl.map((l) => (JSON.parse(l) as { id: string }).id), ["r0", "r1", "r2", "r3", "r4"]);
    const csv: string[] = [];
    assert.equal(await runJournalCommand(["export", "--format", "csv", "--key", "bob"], store, (l) => csv.push(l)), 0);
    assert.equal(csv.length, 4);
    assert.match(csv[1] ?? "", /,"gpt, ""x""",/);
    await ledger.close();
  });

  it("rejects bad arguments with exit code 2", async () => {
    const { store, ledger } = await seeded();
    const lines: string[] = [];
    assert.equal(await runJournalCommand(["list", "--since", "yesterday"], store, (l) => lines.push(l)), 2);
    assert.equal(await runJournalCommand(["export", "--format", "xml"], store, (l) => lines.push(l)), 2);
    assert.equal(await runBudgetCommand(["reconcile", "--cost-at", "half"], store, budgets, (l) => lines.push(l)), 2);
    assert.match(lines[0] ?? "", /--since must be an ISO time or a duration/);
    await ledger.close();
  });

  it("shows budget status and reconciles interrupted calls", async () => {
    const { store, ledger } = await seeded();
    const status: string[] = [];
    assert.equal(await runBudgetCommand(["status", "--json"], store, budgets, (l) => status.push(l)), 0);
    const rows = JSON.parse(status.join("\n")) as Array<{ budgetId: string; spent: number; reserved: number; remaining: number }>;
    assert.deepEqual(rows.map((r) => [r.budgetId, r.spent, r.reserved, r.remaining]), [["team", 1.5, 4, 4.5], ["all", 0, 0, 100]]);
    assert.equal(await store.recover(Date.now()), 2);
    const out: string[] = [];
    assert.equal(await runBudgetCommand(["reconcile"], store, budgets, (l) => out.push(l)), 0);
    assert.deepEqual(out, ["reconciled 2 interrupted call(s): 4 charged, 0 released"]);
    const table: string[] = [];
    assert.equal(await runBudgetCommand(["status"], store, budgets, (l) => table.push(l)), 0);
    assert.match(table[1] ?? "", /^team\s+project:p\s+\d{4}-\d{2}\s+strict\s+10\s+5\.5\s+0\s+4\.5$/);
    await ledger.close();
  });
});
