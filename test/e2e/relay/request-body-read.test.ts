import assert from "node:assert/strict";
import { connect } from "node:net";
import { after, before, describe, test } from "node:test";
import type { JournalEntry } from "../../../src/shared/journal-records.ts";
import type { Store } from "../../../src/storage/store.ts";
import { startMockServer, startRelay, TEST_KEY, type MockServer, type RelayUnderTest } from "../../support/relay-harness.ts";
import { allEntries, chatBody, openStore, post } from "../../support/relay-calls.ts";
import { eventually } from "../../support/sse-bytes.ts";

const TIMEOUT_MS = 400;
let mock: MockServer;
let relay: RelayUnderTest;
let store: Store;

before(async () => {
  mock = await startMockServer();
  relay = await startRelay(mock.url, {
    server: { host: "127.0.0.1", port: 0, shutdownGraceMs: 2000, bodyReadTimeoutMs: TIMEOUT_MS },
    budgets: [{ id: "all", scope: "total", period: "total", limit: 100 }],
  });
  store = await openStore(relay.config.storage);
});

after(async () => {
  await store.close();
  await relay.stop();
  await mock.stop();
});

/** The request head of a POST to `path` with the harness key, framed by `framing` (a header line). */
function head(path: string, framing: string): string {
  return `POST ${path} HTTP/1.1\r\nhost: relay.test\r\nauthorization: Bearer ${TEST_KEY}\r\ncontent-type: application/json\r\n${framing}\r\n\r\n`;
}

/** Opens a raw connection to the relay, sends `bytes`, and collects what comes back until it closes. */
function rawClient(bytes: string) {
  const socket = connect(Number(new URL(relay.url).port), "127.0.0.1");
  let received = "";
  // Resolves with the first complete response (status, JSON body), framed by its content-length.
  const response = new Promise<{ status: number; body: Record<string, unknown> }>((resolve, reject) => {
    socket.on("data", (data) => {
      received += data.toString();
      const end = received.indexOf("\r\n\r\n");
      const length = Number(/\r\ncontent-length: *(\d+)/i.exec(received)?.[1] ?? NaN);
      if (end < 0 || received.length < end + 4 + length) return;
      resolve({ status: Number(received.slice(9, 12)), body: JSON.parse(received.slice(end + 4, end + 4 + length)) as Record<string, unknown> });
    });
    socket.on("close", () => reject(new Error(`connection closed without a response: ${JSON.stringify(received)}`)));
  });
  response.catch(() => {});
  socket.on("error", () => {});
  const sent = new Promise<void>((resolve) => socket.write(bytes, () => resolve()));
  return { socket, sent, response };
}

/** The one finished entry, not in `idsBefore`, of a call to `route` that ended with `errorCode`. */
async function finishedEntry(idsBefore: Set<string>, route: string, errorCode: string): Promise<JournalEntry> {
  let entry: JournalEntry | undefined;
  assert.ok(
    await eventually(async () => {
      entry = (await allEntries(store)).find((e) => !idsBefore.has(e.id) && e.finishedAt !== null && e.route === route && e.errorCode === errorCode);
      return entry !== undefined;
    }),
    "the call was journaled",
  );
  return entry!;
}

const existingIds = async () => new Set((await allEntries(store)).map((e) => e.id));

describe("a client that hangs up while sending its body", () => {
  test("is journaled as client_aborted, reserves nothing, and the relay keeps serving", async () => {
    const before = await existingIds();
    const body = JSON.stringify(chatBody());
    const client = rawClient(head("/v1/chat/completions", `content-length: ${body.length}`) + body.slice(0, 20));
    await client.sent;
    client.socket.destroy();
    const entry = await finishedEntry(before, "/v1/chat/completions", "client_aborted");
    assert.deepEqual([entry.outcome, entry.errorCode, entry.status], ["client_aborted", "client_aborted", 499]);
    assert.equal(entry.reservedCost, null, "nothing was reserved");
    const [usage] = await store.budgetUsage([{ budgetId: "all", period: "total" }]);
    assert.equal(usage?.reserved ?? 0, 0);
    const next = await post(relay.url, "/v1/chat/completions", chatBody());
    assert.equal(next.status, 200, "the relay still serves");
    await next.arrayBuffer();
  });
});

describe(`a body idle for server.bodyReadTimeoutMs (${TIMEOUT_MS} ms)`, () => {
  const partial = JSON.stringify(chatBody()).slice(0, 20);
  const cases = [
    ["shorter than its content-length, OpenAI route", "/v1/chat/completions", `content-length: 500`, partial],
    ["chunked without its end, Anthropic route", "/v1/messages", "transfer-encoding: chunked", `${partial.length.toString(16)}\r\n${partial}\r\n`],
  ] as const;
  for (const [label, path, framing, sent] of cases) {
    test(`${label}: 408 request_timeout in the route's envelope, journaled as refused`, async () => {
      const before = await existingIds();
      const client = rawClient(head(path, framing) + sent);
      const { status, body } = await client.response;
      client.socket.destroy();
      assert.equal(status, 408);
      const message = `The request body stalled: no byte of it arrived for ${TIMEOUT_MS} ms`;
      // Anthropic's envelope is `{ type: "error", error }`, OpenAI's `{ error }`.
      if (path === "/v1/messages") assert.equal(body["type"], "error");
      const error = body["error"] as Record<string, unknown>;
      assert.deepEqual([error["code"], error["message"]], ["request_timeout", message]);
      const entry = await finishedEntry(before, path, "request_timeout");
      assert.deepEqual([entry.outcome, entry.errorCode, entry.status, entry.reservedCost], ["refused", "request_timeout", 408, null]);
    });
  }
});

describe("a slow but steady upload", () => {
  test("taking longer than server.bodyReadTimeoutMs in total is read whole and answered (the limit is an idle time)", async () => {
    const before = await existingIds();
    const body = JSON.stringify(chatBody());
    const client = rawClient(head("/v1/chat/completions", `content-length: ${body.length}`));
    await client.sent;
    // Pieces a tenth of the idle limit apart, spanning well over twice the limit in total.
    const pieces = 25;
    const size = Math.ceil(body.length / pieces);
    const gapMs = TIMEOUT_MS / 10;
    const started = performance.now();
    for (let offset = 0; offset < body.length; offset += size) {
      await new Promise<void>((resolve) => client.socket.write(body.slice(offset, offset + size), () => resolve()));
      if (offset + size < body.length) await new Promise((resolve) => setTimeout(resolve, gapMs));
    }
    const uploadMs = performance.now() - started;
    const { status, body: answer } = await client.response;
    client.socket.destroy();
    assert.ok(uploadMs > TIMEOUT_MS, `the upload took ${uploadMs} ms, longer than the idle limit`);
    assert.equal(status, 200, JSON.stringify(answer));
    assert.equal(answer["object"], "chat.completion");
    const journaledOk = async () => (await allEntries(store)).some((e) => !before.has(e.id) && e.route === "/v1/chat/completions" && e.outcome === "ok");
    assert.ok(await eventually(journaledOk), "the call was journaled ok");
  });
});
