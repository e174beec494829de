import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import { costOf } from "../../../src/pricing/cost.ts";
import { BUILTIN_PRICES } from "../../../src/pricing/prices-builtin.ts";
import type { JournalEntry } from "../../../src/shared/journal-records.ts";
import type { Store } from "../../../src/storage/store.ts";
import type { MockServer, RelayUnderTest } from "../../support/relay-harness.ts";
import { allEntries, chatBody, errorOf, finishedEntries, mockStats, post } from "../../support/relay-calls.ts";
import { joinChunks, readChunks } from "../../support/sse-bytes.ts";
import { startMockRelay, withRelay } from "../../support/with-relay.ts";

const PRICE = BUILTIN_PRICES["mock"]!;
const decoder = new TextDecoder();
let mock: MockServer;
let relay: RelayUnderTest;
let store: Store;
let stop: () => Promise<void>;

before(async () => {
  ({ mock, relay, store, stop } = await startMockRelay({
    config: {
      models: { "mock-gpt": { provider: "mock" }, "mock-claude": { provider: "mock" }, "unpriced-llm": { provider: "mock" } },
      budgets: [{ id: "all", scope: "total", period: "total", limit: 100 }],
    },
  }));
});

after(() => stop());

const claudeStream = (extra: Record<string, unknown> = {}) => ({ model: "mock-claude", messages: [{ role: "user", content: "hi" }], max_tokens: 20, stream: true, ...extra });

/** The finished entry of a response. */
async function entryOf(response: Response): Promise<JournalEntry> {
  const id = response.headers.get("x-request-id")!;
  return (await finishedEntries(store, [id])).get(id)!;
}

function costFromTokens(entry: JournalEntry): number {
  return costOf({ inputTokens: entry.inputTokens ?? 0, cachedInputTokens: entry.cachedInputTokens ?? 0, outputTokens: entry.outputTokens ?? 0 }, PRICE);
}

/** Reads a stream until its first chunk, then aborts the client request. */
async function abortAfterFirstChunk(body: unknown): Promise<string> {
  const controller = new AbortController();
  const response = await post(relay.url, body === null ? "" : (body as { model: string }).model === "mock-claude" ? "/v1/messages" : "/v1/chat/completions", body, { "x-mock-fault": "slow=50" }, controller.signal);
  assert.equal(response.status, 200);
  const first = await response.body!.getReader().read();
  assert.ok(!first.done);
  controller.abort();
  return response.headers.get("x-request-id")!;
}

describe("settlement to the real cost", () => {
  test("JSON call: settled from usage, budget headers on the response", async () => {
    const response = await post(relay.url, "/v1/chat/completions", chatBody());
    assert.equal(response.status, 200);
    assert.equal(response.headers.get("x-renio-budget"), "all");
    const remaining = Number(response.headers.get("x-renio-budget-remaining"));
    assert.ok(remaining > 99 && remaining < 100, `remaining ${remaining}`);
    const usage = ((await response.json()) as { usage: { prompt_tokens: number; completion_tokens: number } }).usage;
    const entry = await entryOf(response);
    assert.deepEqual([entry.inputTokens, entry.outputTokens], [usage.prompt_tokens, usage.completion_tokens]);
    assert.equal(entry.cost, costFromTokens(entry));
    assert.ok(entry.cost! < entry.reservedCost!);
  });

  test("OpenAI stream without include_usage: Renio asks for usage, hides that chunk, settles from it", async () => {
    const response = await post(relay.url, "/v1/chat/completions", chatBody({ max_tokens: 30, stream: true }));
    assert.equal(response.status, 200);
    assert.ok(response.headers.get("x-renio-budget-remaining") !== null);
    const text = decoder.decode(joinChunks(await readChunks(response)));
    assert.doesNotMatch(text, /"usage":\{/, "the caller did not ask for usage");
    assert.match(text, /data: \[DONE\]/);
    const entry = await entryOf(response);
    assert.equal(entry.outcome, "ok");
    assert.equal(entry.outputTokens, 30);
    assert.ok(entry.inputTokens! > 0);
    assert.equal(entry.cost, costFromTokens(entry));
    assert.ok(entry.cost! < entry.reservedCost!);
  });

  test("Anthropic stream: settled from message_start and message_delta usage", async () => {
    const response = await post(relay.url, "/v1/messages", claudeStream());
    assert.equal(response.status, 200);
    await readChunks(response);
    const entry = await entryOf(response);
    assert.equal(entry.outputTokens, 20);
    assert.ok(entry.inputTokens! > 0);
    assert.equal(entry.cost, costFromTokens(entry));
  });

  test("stream cut by the provider before any usage: settled at the reservation", async () => {
    const response = await post(relay.url, "/v1/chat/completions", chatBody({ stream: true }), { "x-mock-fault": "cut=3;slow=20" });
    assert.equal(response.status, 200);
    await assert.rejects(readChunks(response));
    const entry = await entryOf(response);
    assert.equal(entry.outcome, "upstream_error");
    assert.equal(entry.errorCode, "upstream_stream_cut");
    assert.equal(entry.outputTokens, null);
    assert.equal(entry.cost, entry.reservedCost);
  });

  test("Anthropic stream cut before message_delta: usage seen is journaled, but settled at the reservation (never under-charged)", async () => {
    const response = await post(relay.url, "/v1/messages", claudeStream(), { "x-mock-fault": "cut=5;slow=20" });
    await assert.rejects(readChunks(response));
    const entry = await entryOf(response);
    assert.equal(entry.outcome, "upstream_error");
    assert.equal(entry.errorCode, "upstream_stream_cut");
    assert.ok(entry.inputTokens! > 0, "message_start usage was seen");
    assert.equal(entry.outputTokens, 1, "message_start's placeholder, not a count");
    assert.ok(costFromTokens(entry) < entry.reservedCost!);
    assert.equal(entry.cost, entry.reservedCost);
  });

  test("client abort mid-stream before the final usage: settled at the reservation (OpenAI and Anthropic)", async () => {
    const openaiId = await abortAfterFirstChunk(chatBody({ stream: true }));
    const claudeId = await abortAfterFirstChunk(claudeStream());
    const entries = await finishedEntries(store, [openaiId, claudeId]);
    const openai = entries.get(openaiId)!;
    assert.equal(openai.outcome, "client_aborted");
    assert.equal(openai.cost, openai.reservedCost);
    const claude = entries.get(claudeId)!;
    assert.equal(claude.outcome, "client_aborted");
    assert.ok(claude.inputTokens! > 0, "message_start usage is journaled");
    assert.ok(costFromTokens(claude) < claude.reservedCost!);
    assert.equal(claude.cost, claude.reservedCost);
  });

  test("unpriced model under a strict budget: refused with a message naming the model, never forwarded", async () => {
    const before = (await mockStats(mock.url)).received;
    const response = await post(relay.url, "/v1/chat/completions", chatBody({ model: "unpriced-llm" }));
    assert.equal(response.status, 403);
    const error = await errorOf(response);
    assert.equal(error.code, "model_not_priced");
    assert.match(error.message, /`unpriced-llm` has no price/);
    assert.equal((await mockStats(mock.url)).received, before);
  });

  test("max_tokens above the model's maximum: 400 max_tokens_too_large, never forwarded", async () => {
    const before = (await mockStats(mock.url)).received;
    const response = await post(relay.url, "/v1/chat/completions", chatBody({ max_tokens: 1_000_000 }));
    assert.equal(response.status, 400);
    const error = await errorOf(response);
    assert.equal(error.code, "max_tokens_too_large");
    assert.match(error.message, /1000000 tokens.*16384 tokens/);
    assert.equal((await mockStats(mock.url)).received, before);
  });

  test("the budget's stored spend is the sum of the settled costs, nothing left reserved", async () => {
    const entries = await allEntries(store);
    const open = entries.filter((e) => e.finishedAt === null).map((e) => e.id);
    await finishedEntries(store, open);
    const settled = (await allEntries(store)).reduce((sum, e) => sum + (e.cost ?? 0), 0);
    const [usage] = await store.budgetUsage([{ budgetId: "all", period: "total" }]);
    assert.ok(Math.abs(usage!.spent - settled) < 1e-9, `spent ${usage!.spent} vs settled ${settled}`);
    assert.equal(usage!.reserved, 0);
  });
});

describe("observe mode", () => {
  test("records spend past the limit and never refuses", async () => {
    const config = { budget: { mode: "observe" }, budgets: [{ id: "watch", scope: { project: "tests" }, period: "day", limit: 0.00001 }] };
    await withRelay(mock.url, config, async ({ relay: observed, store: observedStore }) => {
      const ids: string[] = [];
      for (let i = 0; i < 3; i++) {
        const response = await post(observed.url, "/v1/chat/completions", chatBody());
        assert.equal(response.status, 200);
        assert.equal(response.headers.get("x-renio-budget"), "watch");
        await response.arrayBuffer();
        ids.push(response.headers.get("x-request-id")!);
      }
      const entries = await finishedEntries(observedStore, ids);
      const settled = ids.reduce((sum, id) => sum + entries.get(id)!.cost!, 0);
      const [usage] = await observedStore.budgetUsage();
      assert.equal(usage!.budgetId, "watch");
      assert.ok(usage!.spent > usage!.limit, "spend went past the limit");
      assert.ok(Math.abs(usage!.spent - settled) < 1e-9);
    });
  });
});
