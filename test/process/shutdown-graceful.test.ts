import assert from "node:assert/strict";
import process from "node:process";
import { join } from "node:path";
import { after, before, test } from "node:test";
import type { StorageConfig } from "../../src/config/config-schema.ts";
import { startMockServer, type MockServer } from "../support/relay-harness.ts";
import { allEntries, chatBody, openStore, post } from "../support/relay-calls.ts";
import { bounded, relayConfig, scratchDir, startRelayProcess, writeConfig } from "../support/relay-process.ts";

const STREAMS = 8;
const decoder = new TextDecoder();
let mock: MockServer;

before(async () => {
  mock = await startMockServer({ chunks: 8 });
});

after(async () => {
  await mock.stop();
});

/** Starts a stream, waits for its first chunk, and returns the rest of the body as a promise. */
async function openStream(url: string, anthropic: boolean): Promise<{ id: string; rest: Promise<string> }> {
  const body = anthropic
    ? { model: "mock-claude", messages: [{ role: "user", content: "hi" }], max_tokens: 16, stream: true }
    : chatBody({ max_tokens: 16, stream: true });
  const response = await post(url, anthropic ? "/v1/messages" : "/v1/chat/completions", body, { "x-mock-fault": "slow=80" });
  assert.equal(response.status, 200);
  const reader = response.body!.getReader();
  const first = await reader.read();
  assert.ok(!first.done);
  const rest = (async () => {
    let text = decoder.decode(first.value, { stream: true });
    for (;;) {
      const { done, value } = await reader.read();
      if (done) return text + decoder.decode();
      text += decoder.decode(value, { stream: true });
    }
  })();
  return { id: response.headers.get("x-request-id")!, rest };
}

for (const eventLoops of [1, 2]) {
  const skip = eventLoops > 1 && (process.versions.bun === undefined || process.platform !== "linux") ? "several event loops: Bun on Linux only" : false;
  test(`SIGTERM with streams in flight on ${eventLoops} event loop(s): they complete, the journal is flushed, exit 0, nothing interrupted after restart`, { skip, timeout: 60_000 }, () => sigtermWithStreams(eventLoops));
}

async function sigtermWithStreams(eventLoops: number): Promise<void> {
  const dir = scratchDir();
  const storage: StorageConfig = { type: "sqlite", path: join(dir, "renio.db") };
  const server = { host: "127.0.0.1", port: 0, shutdownGraceMs: 5000, eventLoops };
  const configPath = writeConfig(dir, relayConfig(mock.url, storage, { server, budgets: [{ id: "all", scope: "total", period: "total", limit: 10 }] }));
  const relay = await startRelayProcess(configPath);

  const streams = await Promise.all(Array.from({ length: STREAMS }, (_, i) => openStream(relay.url, i % 2 === 1)));
  const exit = relay.stop("SIGTERM");
  const bodies = await bounded(Promise.all(streams.map((s) => s.rest)), 10_000, () => "streams did not finish");
  bodies.forEach((text, i) => assert.match(text, i % 2 === 1 ? /event: message_stop/ : /data: \[DONE\]/, `stream ${i} ran to its end`));
  const exited = await exit;
  assert.equal(exited.code, 0, relay.output());
  assert.match(relay.output(), /renio: stopped/);

  const restarted = await startRelayProcess(configPath);
  assert.equal((await restarted.stop()).code, 0);
  assert.doesNotMatch(restarted.output(), /recovered:/, "no entry was left unfinished");

  const store = await openStore(storage);
  try {
    const byId = new Map((await allEntries(store)).map((entry) => [entry.id, entry]));
    for (const { id } of streams) {
      const entry = byId.get(id);
      assert.equal(entry?.outcome, "ok", `stream ${id} completed in the journal`);
      assert.equal(entry?.outputTokens, 16);
      assert.ok(entry?.cost !== null && entry!.cost! > 0);
    }
    const [usage] = await store.budgetUsage([{ budgetId: "all", period: "total" }]);
    assert.equal(usage!.reserved, 0, "every reservation settled");
  } finally {
    await store.close();
  }
}
