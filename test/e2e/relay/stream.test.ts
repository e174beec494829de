import Anthropic from "@anthropic-ai/sdk";
import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import OpenAI from "openai";
import type { MockStats } from "../../../src/providers/mock/mock-server.ts";
import { TEST_KEY, type MockServer, type RelayUnderTest } from "../../support/relay-harness.ts";
import { startMockRelay } from "../../support/with-relay.ts";
import { eventually, joinChunks, maskPerCallValues, readChunks, sseEvents } from "../../support/sse-bytes.ts";

let mock: MockServer;
let relay: RelayUnderTest;
let stop: () => Promise<void>;

before(async () => ({ mock, relay, stop } = await startMockRelay()));
after(() => stop());

/** POSTs a JSON body, either through the relay (with the test key) or directly to the mock. */
function post(via: "relay" | "mock", path: string, body: unknown, headers: Record<string, string> = {}, signal?: AbortSignal): Promise<Response> {
  const base = via === "relay" ? relay.url : mock.url;
  return fetch(`${base}${path}`, {
    method: "POST",
    headers: { authorization: `Bearer ${TEST_KEY}`, "content-type": "application/json", ...headers },
    body: JSON.stringify(body),
    ...(signal ? { signal } : {}),
  });
}

async function stats(): Promise<MockStats> {
  return (await (await fetch(`${mock.url}/_mock/stats`)).json()) as MockStats;
}

/** The SSE events of a streamed call, raw bytes split at event boundaries, per-call values masked. */
async function streamedEvents(via: "relay" | "mock", path: string, body: unknown): Promise<{ events: string[]; contentType: string | null }> {
  const response = await post(via, path, body);
  assert.equal(response.status, 200, `${via} ${path}`);
  const bytes = joinChunks(await readChunks(response));
  const events = sseEvents(bytes);
  assert.equal(events.join(""), new TextDecoder().decode(bytes), "event split keeps every byte");
  return { events: events.map(maskPerCallValues), contentType: response.headers.get("content-type") };
}

const STREAMS: ReadonlyArray<readonly [string, Record<string, unknown>]> = [
  ["/v1/chat/completions", { model: "mock-gpt", messages: [{ role: "user", content: "hi" }], max_tokens: 8, stream: true, stream_options: { include_usage: true } }],
  ["/v1/completions", { model: "mock-gpt", prompt: "hi", max_tokens: 8, stream: true, stream_options: { include_usage: true } }],
  ["/v1/responses", { model: "mock-gpt", input: "hi", max_output_tokens: 8, stream: true }],
  ["/v1/messages", { model: "mock-claude", messages: [{ role: "user", content: "hi" }], max_tokens: 8, stream: true }],
];

describe("streamed bytes are the mock's bytes", () => {
  for (const [path, body] of STREAMS) {
    test(`${path}: same events, same bytes (ids and timestamps masked)`, async () => {
      const direct = await streamedEvents("mock", path, body);
      const relayed = await streamedEvents("relay", path, body);
      assert.equal(relayed.contentType, direct.contentType);
      assert.ok(direct.events.length >= 8, `direct stream has ${direct.events.length} events`);
      assert.deepEqual(relayed.events, direct.events);
    });
  }

  test("the masking only hides per-call values: two direct calls agree, and ids really occur", async () => {
    const [path, body] = STREAMS[0]!;
    const first = await streamedEvents("mock", path, body);
    const second = await streamedEvents("mock", path, body);
    assert.deepEqual(first.events, second.events);
    assert.ok(first.events[0]!.includes('"id":"<id>"'));
  });

  for (const [path, withUsage] of STREAMS.slice(0, 2)) {
    test(`${path}, caller without include_usage: Renio asks for usage and removes that chunk; all else unchanged`, async () => {
      const { stream_options: _omitted, ...withoutUsage } = withUsage;
      // Renio adds include_usage upstream, so the mock answers as it does to a caller who asked.
      const direct = await streamedEvents("mock", path, withUsage);
      const relayed = await streamedEvents("relay", path, withoutUsage);
      const usageEvents = direct.events.filter((event) => /"usage":\{/.test(event));
      assert.equal(usageEvents.length, 1, "the mock sends one usage chunk when asked");
      assert.deepEqual(relayed.events, direct.events.filter((event) => !usageEvents.includes(event)));
      assert.ok(relayed.events.every((event) => !/"usage":\{/.test(event)));
      assert.equal(relayed.events.at(-1), "data: [DONE]\n\n");
    });
  }
});

describe("streaming is incremental", () => {
  test("the first chunk reaches the client while the mock is still streaming", async () => {
    const slowMs = 60;
    const before = await stats();
    const response = await post("relay", "/v1/chat/completions", STREAMS[0]![1], { "x-mock-fault": `slow=${slowMs}` });
    assert.equal(response.status, 200);
    const reader = response.body!.getReader();
    const first = await reader.read();
    const firstAt = performance.now();
    assert.equal(first.done, false);
    const atFirstChunk = await stats();
    assert.equal(atFirstChunk.received, before.received + 1);
    assert.equal(atFirstChunk.completed, before.completed, "the mock had not finished its stream when the first chunk arrived");
    let lastAt = firstAt;
    let text = new TextDecoder().decode(first.value);
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      lastAt = performance.now();
      text += new TextDecoder().decode(value);
    }
    const events = sseEvents(new TextEncoder().encode(text));
    assert.ok(events.length >= 10, `${events.length} events`);
    assert.ok(sseEvents(first.value!).length < events.length / 2, "the first chunk carried only the start of the stream");
    assert.ok(lastAt - firstAt >= 4 * slowMs, `first chunk ${(lastAt - firstAt).toFixed(0)} ms before the last`);
    assert.ok(await eventually(async () => (await stats()).completed === before.completed + 1));
  });
});

describe("an upstream stream cut mid-way", () => {
  test("reaches the client as an error, never as a clean end", async () => {
    const client = new OpenAI({ apiKey: TEST_KEY, baseURL: `${relay.url}/v1`, maxRetries: 0, timeout: 5_000 });
    const stream = await client.chat.completions.create(
      { model: "mock-gpt", messages: [{ role: "user", content: "hi" }], max_tokens: 8, stream: true },
      { headers: { "x-mock-fault": "slow=50; cut=3" } },
    );
    let chunks = 0;
    await assert.rejects(async () => {
      for await (const _chunk of stream) chunks++;
    });
    assert.ok(chunks >= 1 && chunks <= 3, `read ${chunks} chunks before the cut`);
  });

  test("raw bytes: the events before the cut, then a failed read", async () => {
    const response = await post("relay", "/v1/messages", STREAMS[3]![1], { "x-mock-fault": "slow=50; cut=5" });
    assert.equal(response.status, 200);
    const reader = response.body!.getReader();
    let text = "";
    await assert.rejects(async () => {
      for (;;) {
        const { done, value } = await reader.read();
        if (done) return;
        text += new TextDecoder().decode(value);
      }
    });
    assert.ok(text.startsWith("event: message_start\n"));
    assert.ok(!text.includes("message_stop"));
  });
});

describe("a client disconnect aborts the upstream call", () => {
  test("OpenAI SDK stream aborted after the first chunk", async () => {
    const before = await stats();
    const client = new OpenAI({ apiKey: TEST_KEY, baseURL: `${relay.url}/v1`, maxRetries: 0, timeout: 5_000 });
    const stream = await client.chat.completions.create(
      { model: "mock-gpt", messages: [{ role: "user", content: "hi" }], max_tokens: 8, stream: true },
      { headers: { "x-mock-fault": "slow=300" } },
    );
    for await (const chunk of stream) {
      assert.equal(chunk.object, "chat.completion.chunk");
      stream.controller.abort();
      break;
    }
    assert.ok(await eventually(async () => (await stats()).aborted === before.aborted + 1), "the mock saw the abort");
    const afterwards = await stats();
    assert.equal(afterwards.completed, before.completed);
    assert.equal(afterwards.received, before.received + 1);
  });

  test("Anthropic SDK stream aborted after the first event", async () => {
    const before = await stats();
    const client = new Anthropic({ apiKey: TEST_KEY, baseURL: relay.url, maxRetries: 0, timeout: 5_000 });
    const stream = await client.messages.create(
      { model: "mock-claude", messages: [{ role: "user", content: "hi" }], max_tokens: 8, stream: true },
      { headers: { "x-mock-fault": "slow=300" } },
    );
    for await (const event of stream) {
      assert.equal(event.type, "message_start");
      stream.controller.abort();
      break;
    }
    assert.ok(await eventually(async () => (await stats()).aborted === before.aborted + 1), "the mock saw the abort");
    assert.equal((await stats()).completed, before.completed);
  });

  test("raw fetch aborted before the first byte (during the mock's first-byte delay)", async () => {
    const before = await stats();
    const controller = new AbortController();
    const pending = post("relay", "/v1/chat/completions", STREAMS[0]![1], { "x-mock-fault": "delay=2000" }, controller.signal);
    assert.ok(await eventually(async () => (await stats()).received === before.received + 1), "the call reached the mock");
    controller.abort();
    await assert.rejects(pending);
    assert.ok(await eventually(async () => (await stats()).aborted === before.aborted + 1), "the mock saw the abort");
  });
});
