import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { createMock, type MockOptions } from "./mock-server.ts";
import { postJson, sseJson, waitFor } from "../../../test/support/mock-test-support.ts";

const FAST: MockOptions = { latencyMs: 0, chunkIntervalMs: 0, chunks: 8 };
const CHAT = { model: "m", messages: [{ role: "user", content: "hi" }], max_tokens: 8 };
const CHAT_STREAM = { ...CHAT, stream: true };

/** Reads a body to its end; returns the text read and the error it ended with, if any. */
async function drain(response: Response): Promise<{ text: string; error: unknown }> {
  const reader = (response.body as ReadableStream<Uint8Array>).getReader();
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

describe("mock routing", () => {
  test("unknown route 404, wrong method 405, invalid JSON 400, in the route's envelope", async () => {
    const mock = createMock(FAST);
    const missing = await mock.fetch(new Request("http://mock.test/v1/nothing", { method: "POST", body: "{}" }));
    assert.equal(missing.status, 404);
    assert.equal(((await missing.json()) as { error: { type: string } }).error.type, "not_found_error");

    const wrongMethod = await mock.fetch(new Request("http://mock.test/v1/chat/completions"));
    assert.equal(wrongMethod.status, 405);
    assert.equal(wrongMethod.headers.get("allow"), "POST");
    assert.ok(((await wrongMethod.json()) as { error: { message: string } }).error.message.length > 0);

    const badJson = await mock.fetch(new Request("http://mock.test/v1/messages", { method: "POST", body: "{nope" }));
    assert.equal(badJson.status, 400);
    assert.deepEqual(((await badJson.json()) as { type: string; error: { type: string } }).error.type, "invalid_request_error");

    const notObject = await mock.fetch(new Request("http://mock.test/v1/chat/completions", { method: "POST", body: "[1]" }));
    assert.equal(notObject.status, 400);
    await notObject.body?.cancel();
  });

  test("stats: received, completed, request ids in order; /_mock/stats and /_mock/reset", async () => {
    const mock = createMock(FAST);
    await (await mock.fetch(postJson("/v1/chat/completions", CHAT, { "x-request-id": "a" }))).text();
    await (await mock.fetch(postJson("/v1/chat/completions", CHAT_STREAM, { "x-request-id": "b" }))).text();
    await (await mock.fetch(postJson("/v1/messages", CHAT))).text();
    assert.deepEqual(mock.stats(), { received: 3, receivedByWire: { openai: 2, anthropic: 1 }, completed: 3, aborted: 0, requestIds: ["a", "b", ""] });

    const viaHttp = await mock.fetch(new Request("http://mock.test/_mock/stats"));
    assert.deepEqual(await viaHttp.json(), mock.stats());
    const reset = await mock.fetch(new Request("http://mock.test/_mock/reset", { method: "POST" }));
    assert.equal(reset.status, 200);
    await reset.body?.cancel();
    assert.deepEqual(mock.stats(), { received: 0, receivedByWire: { openai: 0, anthropic: 0 }, completed: 0, aborted: 0, requestIds: [] });
    mock.resetStats();
    assert.equal(mock.stats().received, 0);
  });

  test("keeps only the last 10,000 request ids", async () => {
    const mock = createMock(FAST);
    for (let i = 0; i < 10_005; i++) {
      await mock.fetch(new Request("http://mock.test/v1/models", { headers: { "x-request-id": `r${i}` } }));
    }
    const { received, requestIds } = mock.stats();
    assert.equal(received, 10_005);
    assert.equal(requestIds.length, 10_000);
    assert.equal(requestIds[0], "r5");
    assert.equal(requestIds.at(-1), "r10004");
  });
});

describe("mock timing", () => {
  test("waits latencyMs before answering and chunkIntervalMs between chunks", async () => {
    const mock = createMock({ latencyMs: 40, chunkIntervalMs: 15, chunks: 4 });
    const started = performance.now();
    const response = await mock.fetch(postJson("/v1/chat/completions", CHAT_STREAM));
    const headersAt = performance.now() - started;
    await response.text();
    const total = performance.now() - started;
    assert.ok(headersAt >= 39, `headers after ${headersAt} ms`);
    assert.ok(total >= 39 + 3 * 14, `stream done after ${total} ms`);
  });
});

describe("mock faults", () => {
  test("status=503 answers with the OpenAI envelope, also for stream requests", async () => {
    const mock = createMock(FAST);
    const response = await mock.fetch(postJson("/v1/chat/completions", CHAT_STREAM, { "x-mock-fault": "status=503" }));
    assert.equal(response.status, 503);
    assert.deepEqual(await response.json(), {
      error: { message: "mock: injected fault (status 503)", type: "server_error", param: null, code: "server_error" },
    });
  });

  test("delay=N replaces latencyMs for the first byte", async () => {
    const mock = createMock({ ...FAST, latencyMs: 0 });
    const started = performance.now();
    const response = await mock.fetch(postJson("/v1/chat/completions", CHAT, { "x-mock-fault": "delay=60" }));
    assert.ok(performance.now() - started >= 59);
    assert.equal(response.status, 200);
    await response.text();
  });

  test("slow=N spaces the chunks", async () => {
    const mock = createMock(FAST);
    const response = await mock.fetch(postJson("/v1/chat/completions", CHAT_STREAM, { "x-mock-fault": "slow=20" }));
    const started = performance.now();
    await response.text();
    assert.ok(performance.now() - started >= 7 * 19, "8 deltas, 7 gaps of 20 ms");
  });

  test("cut=3 errors the stream after 3 events; not counted as completed", async () => {
    const mock = createMock(FAST);
    const response = await mock.fetch(postJson("/v1/chat/completions", CHAT_STREAM, { "x-mock-fault": "cut=3" }));
    assert.equal(response.status, 200);
    const { text, error } = await drain(response);
    assert.ok(error instanceof TypeError, "a network-style error, not a clean end");
    assert.equal(sseJson(text).length, 3);
    assert.ok(!text.includes("[DONE]"));
    assert.deepEqual({ ...mock.stats(), requestIds: [] }, { received: 1, receivedByWire: { openai: 1, anthropic: 0 }, completed: 0, aborted: 0, requestIds: [] });
  });

  test("reset rejects fetch with a TypeError", async () => {
    const mock = createMock(FAST);
    await assert.rejects(mock.fetch(postJson("/v1/messages", CHAT, { "x-mock-fault": "reset" })), TypeError);
    assert.equal(mock.stats().completed, 0);
  });

  test("server faults apply to every call; the header overrides them", async () => {
    const mock = createMock({ ...FAST, faults: { status: 500 } });
    const server = await mock.fetch(postJson("/v1/chat/completions", CHAT));
    assert.equal(server.status, 500);
    await server.body?.cancel();
    const overridden = await mock.fetch(postJson("/v1/chat/completions", CHAT, { "x-mock-fault": "status=429" }));
    assert.equal(overridden.status, 429);
    await overridden.body?.cancel();
    const bad = await mock.fetch(postJson("/v1/chat/completions", CHAT, { "x-mock-fault": "boom" }));
    assert.equal(bad.status, 400);
    await bad.body?.cancel();
  });
});

describe("mock abort observation", () => {
  test("aborting mid-stream stops it and counts aborted", async () => {
    const mock = createMock({ latencyMs: 0, chunkIntervalMs: 20, chunks: 50 });
    const controller = new AbortController();
    const response = await mock.fetch(postJson("/v1/chat/completions", { ...CHAT_STREAM, max_tokens: 50 }, {}, controller.signal));
    const reader = (response.body as ReadableStream<Uint8Array>).getReader();
    await reader.read();
    controller.abort();
    await assert.rejects(reader.read());
    assert.ok(await waitFor(() => mock.stats().aborted === 1));
    assert.equal(mock.stats().completed, 0);
  });

  test("aborting during the latency rejects with the abort reason", async () => {
    const mock = createMock({ latencyMs: 5_000, chunkIntervalMs: 0, chunks: 8 });
    const controller = new AbortController();
    const pending = mock.fetch(postJson("/v1/messages", CHAT, {}, controller.signal));
    controller.abort();
    await assert.rejects(pending, (error: unknown) => error instanceof Error && error.name === "AbortError");
    assert.deepEqual({ aborted: mock.stats().aborted, completed: mock.stats().completed }, { aborted: 1, completed: 0 });
  });

  test("cancelling the body stops the stream and counts aborted", async () => {
    const mock = createMock({ latencyMs: 0, chunkIntervalMs: 20, chunks: 50 });
    const response = await mock.fetch(postJson("/v1/messages", { ...CHAT_STREAM, max_tokens: 50 }));
    const reader = (response.body as ReadableStream<Uint8Array>).getReader();
    await reader.read();
    await reader.cancel();
    assert.equal(mock.stats().aborted, 1);
  });
});
