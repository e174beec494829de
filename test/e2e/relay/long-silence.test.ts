import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import { createServer, type AddressInfo, type Server as NetServer, type Socket } from "node:net";
import type { JournalEntry } from "../../../src/shared/journal-records.ts";
import type { Store } from "../../../src/storage/store.ts";
import { chatBody, errorOf, finishedEntries, mockStats, post } from "../../support/relay-calls.ts";
import { eventually } from "../../support/sse-bytes.ts";
import { openRelay, startMockRelay, type MockRelay, type RelayWithStore } from "../../support/with-relay.ts";

/**
 * Long silences: the rules of Renio's own timeouts, tested at a reduced scale (ms and seconds
 * where production defaults are minutes): a stream silent for longer than routing.chunkTimeoutMs
 * ends (between chunks, and between its head and its first chunk); a call is never cut by the
 * server's idle timeout (server.idleTimeoutSeconds: 1 s here, silences of 5 s pass); a client
 * that leaves during a silence is seen and its call settled.
 */

const BUDGETS = [{ id: "all", scope: "total", period: "total", limit: 100 }];
const SERVER = { host: "127.0.0.1", port: 0, shutdownGraceMs: 2000 };

/** Reads a body to its end; resolves with the text received and how the read ended. */
async function readAll(response: Response): Promise<{ text: string; error: unknown }> {
  const reader = response.body!.getReader();
  const decoder = new TextDecoder();
  let text = "";
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) return { text, error: undefined };
      text += decoder.decode(value, { stream: true });
    }
  } catch (error) {
    return { text, error };
  }
}

async function onlyEntry(store: Store, response: Response): Promise<JournalEntry> {
  const id = response.headers.get("x-request-id")!;
  return (await finishedEntries(store, [id])).get(id)!;
}

async function reservedNow(store: Store): Promise<number> {
  const [usage] = await store.budgetUsage([{ budgetId: "all", period: "total" }]);
  return usage!.reserved;
}

describe("routing.chunkTimeoutMs ends a silent stream", () => {
  let relay: MockRelay;
  before(async () => {
    relay = await startMockRelay({ config: { server: SERVER, routing: { chunkTimeoutMs: 300 }, budgets: BUDGETS } });
  });
  after(() => relay.stop());

  test("a pause between chunks longer than the setting: the client's stream errors after the chunks sent, journaled timeout, reservation settled", async () => {
    const response = await post(relay.relay.url, "/v1/chat/completions", chatBody({ stream: true }), { "x-mock-fault": "slow=1500" });
    assert.equal(response.status, 200);
    const started = performance.now();
    const { text, error } = await readAll(response);
    assert.ok(error !== undefined, "the stream ends in an error, never as a clean (truncated) end");
    assert.ok(text.includes("data: "), "the chunks before the silence reached the client");
    assert.ok(!text.includes("[DONE]"));
    assert.ok(performance.now() - started < 1500, "ended before the mock's next chunk");
    const entry = await onlyEntry(relay.store, response);
    assert.deepEqual([entry.outcome, entry.errorCode, entry.status], ["timeout", "upstream_stream_stalled", 200]);
    assert.equal(await reservedNow(relay.store), 0);
    assert.ok(await eventually(async () => (await mockStats(relay.mock.url)).aborted >= 1), "the upstream stream was stopped");
  });

  test("a pause shorter than the setting passes", async () => {
    const response = await post(relay.relay.url, "/v1/chat/completions", chatBody({ stream: true }), { "x-mock-fault": "slow=100" });
    const { text, error } = await readAll(response);
    assert.equal(error, undefined);
    assert.ok(text.includes("[DONE]"));
    assert.equal((await onlyEntry(relay.store, response)).outcome, "ok");
  });
});

describe("routing.chunkTimeoutMs between a stream's head and its first chunk", () => {
  let upstream: NetServer;
  const sockets = new Set<Socket>();
  let opened: RelayWithStore;
  before(async () => {
    // A provider that sends its head at once and nothing after it (a reasoning model thinking).
    upstream = createServer((socket) => {
      sockets.add(socket);
      socket.on("error", () => {});
      socket.once("data", () => socket.write("HTTP/1.1 200 OK\r\ncontent-type: text/event-stream\r\ntransfer-encoding: chunked\r\n\r\n"));
    });
    await new Promise<void>((resolve) => upstream.listen(0, "127.0.0.1", resolve));
    const { port } = upstream.address() as AddressInfo;
    opened = await openRelay(`http://127.0.0.1:${port}`, { server: SERVER, routing: { chunkTimeoutMs: 300 }, budgets: BUDGETS });
  });
  after(async () => {
    await opened.stop();
    for (const socket of sockets) socket.destroy();
    await new Promise((resolve) => upstream.close(resolve));
  });

  test("no first chunk within the setting: 504 upstream_timeout before anything reached the client, journaled timeout", async () => {
    const response = await post(opened.relay.url, "/v1/chat/completions", chatBody({ stream: true }));
    assert.equal(response.status, 504);
    assert.equal((await errorOf(response)).code, "upstream_timeout");
    const entry = await onlyEntry(opened.store, response);
    assert.deepEqual([entry.outcome, entry.errorCode], ["timeout", "upstream_timeout"]);
    assert.equal(await reservedNow(opened.store), 0);
  });
});

describe("a call's silences are not cut by the server's idle timeout", () => {
  let relay: MockRelay;
  before(async () => {
    // Two content chunks: the second comes after the pause the fault header sets.
    relay = await startMockRelay({
      mock: { chunks: 2 },
      config: (mockUrl) => ({
        server: { ...SERVER, idleTimeoutSeconds: 1 },
        providers: { mock: { type: "mock", baseUrl: mockUrl, firstByteTimeoutMs: 20_000 } },
        budgets: BUDGETS,
      }),
    });
  });
  after(() => relay.stop());

  test("server.idleTimeoutSeconds 1: a first byte after 5 s and a 5 s pause between chunks both pass", { timeout: 30_000 }, async () => {
    const url = relay.relay.url;
    const [late, paused] = await Promise.all([
      post(url, "/v1/chat/completions", chatBody(), { "x-mock-fault": "delay=5000" }),
      post(url, "/v1/chat/completions", chatBody({ stream: true }), { "x-mock-fault": "slow=5000" }),
    ]);
    assert.equal(late.status, 200);
    assert.ok(((await late.json()) as { choices: unknown[] }).choices.length > 0);
    const { text, error } = await readAll(paused);
    assert.equal(error, undefined, "the stream was not cut");
    assert.ok(text.includes("[DONE]"));
    for (const response of [late, paused]) assert.equal((await onlyEntry(relay.store, response)).outcome, "ok");
  });

  test("a client that leaves during a pause is seen: journaled client_aborted, the input reported so far charged, nothing left reserved", { timeout: 20_000 }, async () => {
    const controller = new AbortController();
    const aborted = (await mockStats(relay.mock.url)).aborted;
    const body = { model: "mock-claude", max_tokens: 100, stream: true, messages: [{ role: "user", content: "think hard" }] };
    const response = await post(relay.relay.url, "/v1/messages", body, { "x-mock-fault": "slow=3000" }, controller.signal);
    assert.equal(response.status, 200);
    const reader = response.body!.getReader();
    let seen = "";
    while (!seen.includes("content_block_delta")) seen += new TextDecoder().decode((await reader.read()).value);
    assert.ok(seen.includes("message_start"), "message_start (with the input tokens) was relayed before the pause");
    controller.abort();
    await reader.read().catch(() => undefined);
    const entry = await onlyEntry(relay.store, response);
    assert.deepEqual([entry.outcome, entry.errorCode], ["client_aborted", "client_aborted"]);
    assert.ok(entry.cost !== null && entry.cost > 0, "charged");
    assert.ok(entry.inputTokens !== null && entry.inputTokens > 0, "the input tokens message_start reported are recorded");
    assert.equal(await reservedNow(relay.store), 0);
    assert.ok(await eventually(async () => (await mockStats(relay.mock.url)).aborted === aborted + 1), "the upstream stream was stopped during the pause");
  });
});
