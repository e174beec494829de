import assert from "node:assert/strict";
import { randomUUID } from "node:crypto";
import { join } from "node:path";
import process from "node:process";
import { after, before, describe, test } from "node:test";
import type { StorageConfig } from "../../src/config/config-schema.ts";
import { costOf } from "../../src/pricing/cost.ts";
import { createPriceBook } from "../../src/pricing/price-book.ts";
import type { BudgetReconciliationRow, SpendReport, SpendRow } from "../../src/budgets/spend-report.ts";
import type { JournalEntry } from "../../src/shared/journal-records.ts";
import { startMockServer, type MockServer } from "../support/relay-harness.ts";
import { eventually } from "../support/sse-bytes.ts";
import { pgExec } from "../support/store-targets.ts";
import { bounded, relayConfig, runRenio, scratchDir, startRelayProcess, writeConfig, type RenioProcess } from "../support/relay-process.ts";

const ADMIN_TOKEN = "admin-token-for-report-tests-0123";
const ALICE = "sk-renio-report-alice-0001";
const BOB = "sk-renio-report-bob-0002";
const PRICE = createPriceBook(new Map()).priceOf("mock-gpt")!;

let mock: MockServer;

before(async () => {
  mock = await startMockServer({ chunkIntervalMs: 5 });
});

after(async () => {
  await mock.stop();
});

function call(relay: RenioProcess, key: string, path: string, body: Record<string, unknown>, headers: Record<string, string> = {}): Promise<Response> {
  return fetch(`${relay.url}${path}`, {
    method: "POST",
    headers: { authorization: `Bearer ${key}`, "content-type": "application/json", "anthropic-version": "2023-06-01", ...headers },
    body: JSON.stringify(body),
  });
}

async function admin<T>(relay: RenioProcess, query: string): Promise<T> {
  const response = await fetch(`${relay.url}/admin/${query}`, { headers: { authorization: `Bearer ${ADMIN_TOKEN}` } });
  assert.equal(response.status, 200, await response.clone().text());
  return (await response.json()) as T;
}

const close = (actual: number, expected: number, label: string) => assert.ok(Math.abs(actual - expected) < 1e-9, `${label}: ${actual} vs ${expected}`);

/** A fresh PostgreSQL database, named apart from the store-targets ones (Deno runs test files in one process). */
async function freshPostgres(): Promise<StorageConfig> {
  const base = process.env.RENIO_TEST_PG_URL!;
  const name = `renio_report_${process.pid}_${randomUUID().slice(0, 8)}`;
  await pgExec(base, `create database ${name}`);
  const url = new URL(base);
  url.pathname = `/${name}`;
  return { type: "postgres", url: url.toString(), poolSize: 4 };
}

// PostgreSQL only when the caller provides one (RENIO_TEST_PG_URL); SQLite always.
const targets: Array<[string, () => Promise<StorageConfig>]> = [["sqlite", () => Promise.resolve({ type: "sqlite", path: join(scratchDir(), "renio.db") })]];
if (process.env.RENIO_TEST_PG_URL) targets.push(["postgres", freshPostgres]);

for (const [backend, storageFor] of targets) {
  describe(`renio budget report and GET /admin/report: ${backend}`, () => {
    test("spend by key, model and budget from the journal: provider-reported apart from estimated, agreeing with the budget rows", async () => {
      const storage = await storageFor();
      const dir = scratchDir();
      const configPath = writeConfig(
        dir,
        relayConfig(mock.url, storage, {
          server: { host: "127.0.0.1", port: 0, shutdownGraceMs: 2000, adminToken: ADMIN_TOKEN },
          keys: [
            { id: "alice", secret: ALICE, project: "apps" },
            { id: "bob", secret: BOB, project: "data" },
          ],
          budgets: [
            { id: "all", scope: "total", period: "total", limit: 100 },
            { id: "apps-month", scope: { project: "apps" }, period: "month", limit: 50, mode: "strict" },
            { id: "bob-day", scope: { key: "bob" }, period: "day", limit: 20, mode: "observe" },
          ],
        }),
      );
      let relay = await startRelayProcess(configPath);

      // Provider-reported: two JSON calls by alice, one Anthropic call by bob.
      let reportedTokens = { input: 0, output: 0 };
      let aliceReported = 0;
      for (const tokens of [8, 24]) {
        const response = await call(relay, ALICE, "/v1/chat/completions", { model: "mock-gpt", messages: [{ role: "user", content: "hello" }], max_tokens: tokens });
        assert.equal(response.status, 200);
        const { usage } = (await response.json()) as { usage: { prompt_tokens: number; completion_tokens: number } };
        reportedTokens = { input: reportedTokens.input + usage.prompt_tokens, output: reportedTokens.output + usage.completion_tokens };
        aliceReported += costOf({ inputTokens: usage.prompt_tokens, cachedInputTokens: 0, outputTokens: usage.completion_tokens }, PRICE);
      }
      const claude = await call(relay, BOB, "/v1/messages", { model: "mock-claude", messages: [{ role: "user", content: "hi" }], max_tokens: 12 });
      assert.equal(claude.status, 200);
      const bobUsage = ((await claude.json()) as { usage: { input_tokens: number; output_tokens: number } }).usage;
      const bobReported = costOf({ inputTokens: bobUsage.input_tokens, cachedInputTokens: 0, outputTokens: bobUsage.output_tokens }, PRICE);
      // Refused by Renio: counted, never charged.
      const refused = await call(relay, BOB, "/v1/chat/completions", { model: "no-such-model", messages: [] });
      assert.equal(refused.status, 404);
      await refused.arrayBuffer();
      // Estimated: a stream the client hangs up on before the provider's usage is charged its reservation.
      const cut = await call(relay, ALICE, "/v1/chat/completions", { model: "mock-gpt", messages: [{ role: "user", content: "cut" }], max_tokens: 40, stream: true }, { "x-mock-fault": "slow=200" });
      assert.equal(cut.status, 200);
      const cutReader = cut.body!.getReader();
      await cutReader.read();
      await cutReader.cancel();
      const cutId = cut.headers.get("x-request-id")!;
      // Estimated: a call in flight when the relay is killed comes back interrupted, its reservation charged.
      const slow = await call(relay, BOB, "/v1/chat/completions", { model: "mock-gpt", messages: [{ role: "user", content: "slow" }], max_tokens: 30, stream: true }, { "x-mock-fault": "slow=10000" });
      assert.equal(slow.status, 200);
      const slowId = slow.headers.get("x-request-id")!;
      await slow.body!.getReader().read();
      // Every call but the slow one has finished (as /admin/journal, which applies first, shows) before the kill.
      const finished = async () => (await admin<{ data: JournalEntry[] }>(relay, "journal?limit=1000")).data.filter((e) => e.finishedAt === null).length === 1;
      assert.ok(await eventually(finished), "only the slow call is in flight");
      await relay.stop("SIGKILL");
      relay = await startRelayProcess(configPath);
      const restarted = relay;
      assert.ok(await eventually(() => /recovered: 1 entries/.test(restarted.output())), restarted.output());

      const entries = new Map((await admin<{ data: JournalEntry[] }>(relay, "journal?limit=1000")).data.map((e) => [e.id, e]));
      assert.equal(entries.get(cutId)?.costEstimated, true, "the abandoned stream's cost is an estimate");
      assert.equal(entries.get(slowId)?.outcome, "interrupted");
      const cutReserved = entries.get(cutId)!.reservedCost!;
      const slowReserved = entries.get(slowId)!.reservedCost!;
      assert.ok(cutReserved > 0 && slowReserved > 0);

      const byKey = await admin<SpendReport & { object: string }>(relay, "report?by=key&period=month");
      assert.equal(byKey.object, "report");
      assert.equal(byKey.currency, "USD");
      const rows = new Map((byKey.rows as SpendRow[]).map((r) => [r.group, r]));
      assert.deepEqual([...rows.keys()].sort(), ["alice", "bob"]);
      const alice = rows.get("alice")!;
      assert.deepEqual([alice.calls, alice.refused, alice.estimatedCalls, alice.inFlight], [3, 0, 1, 0]);
      assert.deepEqual([alice.inputTokens, alice.outputTokens], [reportedTokens.input, reportedTokens.output]);
      close(alice.reportedCost, aliceReported, "alice reported");
      close(alice.estimatedCost, cutReserved, "alice estimated: the abandoned stream at its reservation");
      close(alice.cost, aliceReported + cutReserved, "alice cost");
      const bob = rows.get("bob")!;
      assert.deepEqual([bob.calls, bob.refused, bob.estimatedCalls], [2, 1, 1]);
      close(bob.reportedCost, bobReported, "bob reported");
      close(bob.estimatedCost, slowReserved, "bob estimated: the interrupted call at its reservation");
      close(byKey.total.cost, aliceReported + cutReserved + bobReported + slowReserved, "total");
      // Reserved against charged: what each key's settled calls held until they settled.
      const reservedOf = (key: string) => [...entries.values()].filter((e) => e.keyId === key && e.outcome !== "started").reduce((sum, e) => sum + (e.reservedCost ?? 0), 0);
      close(alice.reserved, reservedOf("alice"), "alice reserved");
      close(bob.reserved, reservedOf("bob"), "bob reserved");
      assert.ok(alice.reserved > alice.cost, "reservations bound the cost");
      assert.match(alice.period, /^\d{4}-\d{2}$/);

      // By budget: the journal's sums agree with every budget row (the interrupted call is still reserved).
      const byBudget = await admin<SpendReport>(relay, "report?by=budget");
      const budgets = new Map((byBudget.rows as BudgetReconciliationRow[]).map((r) => [r.budgetId, r]));
      assert.deepEqual([...budgets.keys()].sort(), ["all", "apps-month", "bob-day"]);
      for (const row of budgets.values()) assert.equal(row.difference, 0, `${row.budgetId}: journal and budget row agree`);
      close(budgets.get("all")!.cost, byKey.total.cost, "all");
      close(budgets.get("apps-month")!.cost, alice.cost, "apps-month is alice's project");
      close(budgets.get("bob-day")!.budgetReserved, slowReserved, "bob's interrupted call is still reserved");
      assert.equal(budgets.get("all")!.period, "total");

      // The CLI prints the same report (table and --json).
      const json = await runRenio(["budget", "report", "--by", "model", "--period", "day", "--json", "--config", configPath]);
      assert.equal(json.code, 0, json.stderr);
      const { object: _object, ...viaAdmin } = await admin<SpendReport & { object: string }>(relay, "report?by=model&period=day");
      assert.deepEqual(JSON.parse(json.stdout), viaAdmin);
      assert.deepEqual((viaAdmin.rows as SpendRow[]).map((r) => r.group).sort(), ["mock-claude", "mock-gpt", "no-such-model"]);
      const table = await runRenio(["budget", "report", "--config", configPath]);
      assert.equal(table.code, 0, table.stderr);
      assert.match(table.stdout, /^PERIOD\s+KEY\s+CALLS\s+REFUSED\s+INPUT\s+CACHED\s+OUTPUT\s+COST\s+REPORTED\s+ESTIMATED\s+EST_CALLS\s+RESERVED\s+CACHE_HITS\s+SAVED$/m);
      assert.match(table.stdout, /^\d{4}-\d{2}\s+alice\s+3\s+0\s/m);
      assert.match(table.stdout, /^total\s+5\s+1\s/m);
      assert.match(table.stdout, /amounts in USD/);

      // Reconciled at zero, the interrupted call stays an estimate (of 0) and journal and budget rows still agree.
      const reconciled = await runRenio(["budget", "reconcile", "--cost-at", "zero", "--config", configPath]);
      assert.equal(reconciled.code, 0, reconciled.stderr);
      const after = await admin<SpendReport>(relay, "report?by=budget");
      for (const row of after.rows as BudgetReconciliationRow[]) assert.equal(row.difference, 0, `${row.budgetId} after reconcile`);
      const bobAfter = ((await admin<SpendReport>(relay, "report?by=key")).rows as SpendRow[]).find((r) => r.group === "bob")!;
      assert.deepEqual([bobAfter.estimatedCalls, bobAfter.estimatedCost], [1, 0]);

      // Bad arguments: 400 naming the choices; exit 2 on the CLI.
      const bad = await fetch(`${relay.url}/admin/report?by=region`, { headers: { authorization: `Bearer ${ADMIN_TOKEN}` } });
      assert.equal(bad.status, 400);
      assert.match(((await bad.json()) as { error: { message: string } }).error.message, /`by` must be one of key, project, model, budget, end-user, team, tag/);
      assert.equal((await fetch(`${relay.url}/admin/report`)).status, 401);
      const usage = await runRenio(["budget", "report", "--period", "week", "--config", configPath]);
      assert.equal(usage.code, 2);
      assert.match(usage.stderr, /--period must be day or month, got "week"/);
      assert.equal((await bounded(relay.stop(), 10_000, () => "relay did not stop")).code, 0);
    });
  });
}
