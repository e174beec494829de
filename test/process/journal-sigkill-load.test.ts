import assert from "node:assert/strict";
import { join } from "node:path";
import { after, before, test } from "node:test";
import OpenAI from "openai";
import { costOf } from "../../src/pricing/cost.ts";
import { BUILTIN_PRICES } from "../../src/pricing/prices-builtin.ts";
import type { StorageConfig } from "../../src/config/config-schema.ts";
import type { JournalEntry } from "../../src/shared/journal-records.ts";
import { startMockServer, TEST_KEY, type MockServer } from "../support/relay-harness.ts";
import { allEntries, mockStats, openStore } from "../support/relay-calls.ts";
import { relayConfig, runRenio, scratchDir, startRelayProcess, writeConfig } from "../support/relay-process.ts";

/**
 * Issue 10 item 7: a call answered to the client is journaled as finished. The real relay runs
 * as a child process on SQLite under load from the official OpenAI SDK and is SIGKILLed after
 * a fixed number of answers; after a restart on the same file the books must hold.
 */

const CALLS = 200;
const CONCURRENCY = 32;
/** Answers (of any status) after which the relay is killed. */
const KILL_AFTER = 120;
/** README (Crash recovery): a call whose response finished more than this before a crash comes back ok with its real cost. */
const FINISH_BOUND_MS = 10;
/** What the test allows on top for scheduling on a loaded machine (timers of either process firing late). */
const SCHEDULING_SLACK_MS = 250;
/**
 * Every third call uses a key with a strict budget of room for about 30 calls (a call costs
 * about 0.00084 and reserves 0.00097), reached well before the kill; the total budget (strict too)
 * is not reached, so calls of the other key are in flight when the relay dies.
 */
const CAPPED_KEY = "sk-renio-capped-key-0003";
const LIMITS: Record<string, number> = { all: 10, capped: 0.03 };

let mock: MockServer;

before(async () => {
  // Each answer takes at least 150 ms, so the kill comes some waves into the load and the first
  // waves are answered well before it (beyond the bound and its slack).
  mock = await startMockServer({ latencyMs: 150, chunkIntervalMs: 2, chunks: 8 });
});

after(async () => {
  await mock.stop();
});

/** What the client saw of one call. */
interface Answered {
  id: string;
  status: number;
  /** performance.now() when the whole response had arrived. */
  finishedAt: number;
  usage?: { prompt: number; cached: number; completion: number };
}

for (const durability of ["fsync", "process"] as const) test(`${durability}: SIGKILL under load (${CALLS} SDK calls, ${CONCURRENCY} at a time, killed after ${KILL_AFTER} answers): every answered call is settled or reconciled per the documented rules, nothing lost or doubled, the books equal the journal, the strict limit holds`, async () => {
  const dir = scratchDir();
  const storage: StorageConfig = { type: "sqlite", path: join(dir, "renio.db") };
  const keys = [{ id: "test", secret: TEST_KEY, project: "tests" }, { id: "capped", secret: CAPPED_KEY, project: "tests" }];
  const budgets = [
    { id: "all", scope: "total", period: "total", limit: LIMITS["all"], mode: "strict" },
    { id: "capped", scope: { key: "capped" }, period: "total", limit: LIMITS["capped"], mode: "strict" },
  ];
  const configPath = writeConfig(dir, relayConfig(mock.url, storage, { keys, budgets, journal: { durability } }));
  const relay = await startRelayProcess(configPath);
  const receivedBefore = (await mockStats(mock.url)).received;

  const clients = [TEST_KEY, CAPPED_KEY].map((apiKey) => new OpenAI({ apiKey, baseURL: `${relay.url}/v1`, maxRetries: 0, timeout: 30_000 }));
  const answered: Answered[] = [];
  let killedAt: number | undefined;
  let killed: ReturnType<typeof relay.stop> | undefined;
  let next = 0;

  /** One call (every third with the capped key); streams every other one. Resolves with what the client saw, or undefined when the relay died under it. */
  const call = async (i: number): Promise<Answered | undefined> => {
    const client = clients[i % 3 === 0 ? 1 : 0]!;
    const body = { model: "mock-gpt", messages: [{ role: "user" as const, content: `call ${i}` }], max_tokens: 100 };
    try {
      if (i % 2 === 0) {
        const { data, response } = await client.chat.completions.create(body).withResponse();
        const usage = data.usage!;
        return { id: response.headers.get("x-request-id")!, status: response.status, finishedAt: performance.now(), usage: { prompt: usage.prompt_tokens, cached: usage.prompt_tokens_details?.cached_tokens ?? 0, completion: usage.completion_tokens } };
      }
      const { data: stream, response } = await client.chat.completions.create({ ...body, stream: true, stream_options: { include_usage: true } }).withResponse();
      let usage: Answered["usage"];
      for await (const chunk of stream) {
        if (chunk.usage) usage = { prompt: chunk.usage.prompt_tokens, cached: chunk.usage.prompt_tokens_details?.cached_tokens ?? 0, completion: chunk.usage.completion_tokens };
      }
      assert.ok(usage, "the stream reported its usage");
      return { id: response.headers.get("x-request-id")!, status: response.status, finishedAt: performance.now(), usage };
    } catch (error) {
      if (error instanceof OpenAI.APIError && error.status !== undefined && error.headers) {
        // An answer: a refusal under the strict budget.
        return { id: error.headers.get("x-request-id")!, status: error.status, finishedAt: performance.now() };
      }
      // The relay died under this call (connection reset or refused).
      assert.ok(killedAt !== undefined, `a call failed before the kill: ${String(error)}`);
      return undefined;
    }
  };

  const worker = async (): Promise<void> => {
    while (killedAt === undefined && next < CALLS) {
      const result = await call(next++);
      if (result === undefined) continue;
      answered.push(result);
      if (answered.length === KILL_AFTER && killedAt === undefined) {
        killedAt = performance.now();
        killed = relay.stop("SIGKILL");
      }
    }
  };
  await Promise.all(Array.from({ length: CONCURRENCY }, worker));
  assert.ok(killed, `the relay was killed (answers: ${answered.length})`);
  assert.equal((await killed).signal, "SIGKILL");
  const forwarded = (await mockStats(mock.url)).requestIds.slice(receivedBefore);

  // The next relay on the same file replays the admission log and recovers what was open.
  const restarted = await startRelayProcess(configPath);
  const stopped = await restarted.stop("SIGTERM");
  assert.equal(stopped.code, 0, restarted.output());

  const store = await openStore(storage);
  let entries: JournalEntry[];
  let rows: Map<string, { spent: number; reserved: number }>;
  try {
    entries = await allEntries(store);
    rows = new Map((await store.budgetUsage()).map((row) => [row.budgetId, { spent: row.spent, reserved: row.reserved }]));
  } finally {
    await store.close();
  }
  const byId = new Map(entries.map((entry) => [entry.id, entry]));
  assert.equal(byId.size, entries.length, "no entry is listed twice");

  // Nothing lost: every call the provider received, and every call answered, has its entry.
  for (const id of forwarded) assert.ok(byId.has(id), `the forwarded call ${id} has an entry`);
  assert.equal(new Set(forwarded).size, forwarded.length, "the provider received each call once");
  const recoveredLine = /recovered: (\d+) entries/.exec(restarted.output());
  const interrupted = entries.filter((e) => e.outcome === "interrupted");
  assert.equal(Number(recoveredLine?.[1] ?? 0), interrupted.length, `startup reported the interrupted entries:\n${restarted.output()}`);
  assert.equal(entries.filter((e) => e.outcome === "started").length, 0, "none left unfinished");

  // Every answered call, per the documented rules.
  const price = BUILTIN_PRICES["mock"]!;
  let settledBeforeBound = 0;
  for (const answer of answered) {
    const entry = byId.get(answer.id);
    assert.ok(entry, `the answered call ${answer.id} (${answer.status}) has an entry`);
    if (answer.status === 429) {
      assert.deepEqual([entry.outcome, entry.errorCode, entry.reservedCost ?? 0], ["refused", "budget_exceeded", 0], `refused call ${answer.id}`);
      continue;
    }
    assert.equal(answer.status, 200);
    const expected = { inputTokens: answer.usage!.prompt - answer.usage!.cached, cachedInputTokens: answer.usage!.cached, outputTokens: answer.usage!.completion };
    if (killedAt! - answer.finishedAt > FINISH_BOUND_MS + SCHEDULING_SLACK_MS) {
      settledBeforeBound++;
      assert.equal(entry.outcome, "ok", `answered ${(killedAt! - answer.finishedAt).toFixed(0)} ms before the kill: ${answer.id} is ok`);
    }
    if (entry.outcome === "ok") {
      assert.deepEqual([entry.inputTokens, entry.cachedInputTokens, entry.outputTokens], [expected.inputTokens, expected.cachedInputTokens, expected.outputTokens], `tokens of ${answer.id}`);
      assert.equal(entry.cost, costOf(expected, price), `real cost of ${answer.id}`);
    } else {
      // Answered within the bound of the kill: it may come back interrupted, charged its reservation until reconciled.
      assert.deepEqual([entry.outcome, entry.reconcile], ["interrupted", "pending"], `answered call ${answer.id} near the kill`);
    }
  }
  assert.ok(settledBeforeBound >= CONCURRENCY, `at least a wave of answers came well before the kill (${settledBeforeBound} of ${answered.length})`);

  // The books equal the journal, budget by budget: spent = settled costs, reserved = what
  // interrupted calls still hold; within the strict limit.
  const sum = (values: Array<number | null>) => values.reduce<number>((total, value) => total + (value ?? 0), 0);
  const charged: Record<string, (entry: JournalEntry) => boolean> = { all: () => true, capped: (entry) => entry.keyId === "capped" };
  const books = new Map<string, { settled: number; pending: number }>();
  for (const [budgetId, applies] of Object.entries(charged)) {
    const mine = entries.filter(applies);
    const settled = sum(mine.filter((e) => e.outcome !== "interrupted" && e.outcome !== "refused").map((e) => e.cost));
    const pending = sum(mine.filter((e) => e.outcome === "interrupted" && e.reconcile === "pending").map((e) => e.reservedCost));
    const row = rows.get(budgetId)!;
    assert.ok(Math.abs(row.spent - settled) < 1e-9, `${budgetId}: spent ${row.spent} = settled costs ${settled}`);
    assert.ok(Math.abs(row.reserved - pending) < 1e-9, `${budgetId}: reserved ${row.reserved} = pending reservations ${pending}`);
    assert.ok(row.spent + row.reserved <= LIMITS[budgetId]! + 1e-9, `${budgetId}: spent ${row.spent} + reserved ${row.reserved} within the strict limit`);
    books.set(budgetId, { settled, pending });
  }
  assert.ok(answered.some((a) => a.status === 429), "the capped key reached its strict limit");
  assert.ok(interrupted.length > 0, "calls were in flight at the kill");

  // Reconciled (charged in full), the strict limit still holds.
  const reconciled = await runRenio(["budget", "reconcile", "--json", "--config", configPath]);
  assert.equal(reconciled.code, 0, reconciled.stderr);
  const status = await runRenio(["budget", "status", "--json", "--config", configPath]);
  for (const row of JSON.parse(status.stdout) as Array<{ budgetId: string; spent: number; reserved: number }>) {
    const { settled, pending } = books.get(row.budgetId)!;
    assert.equal(row.reserved, 0);
    assert.ok(Math.abs(row.spent - (settled + pending)) < 1e-9, `${row.budgetId}: spent ${row.spent} = settled ${settled} + reconciled ${pending}`);
    assert.ok(row.spent <= LIMITS[row.budgetId]! + 1e-9, `${row.budgetId}: spent ${row.spent} never exceeds the strict limit`);
  }
});
