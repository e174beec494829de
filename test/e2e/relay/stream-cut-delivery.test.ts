import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import OpenAI from "openai";
import { createMock } from "../../../src/providers/mock/mock-server.ts";
import { currentRuntime } from "../../../src/runtime/current-runtime.ts";
import { startRelay, TEST_KEY, type RelayUnderTest } from "../../support/relay-harness.ts";
import { chatBody } from "../../support/relay-calls.ts";
import { startCuttingUpstream, type CuttingUpstream } from "../../support/cutting-upstream.ts";
import { maskPerCallValues, sseEvents } from "../../support/sse-bytes.ts";

const ROUNDS = 20;
/** Chat chunks as OpenAI streams them, each carrying its index. */
const CHUNKS = Array.from({ length: 6 }, (_, i) =>
  `data: {"id":"chatcmpl-cut","object":"chat.completion.chunk","created":0,"model":"mock-gpt","choices":[{"index":0,"delta":{"content":"part ${i}"},"finish_reason":null}]}\n\n`);

let upstream: CuttingUpstream;
let relay: RelayUnderTest;
/** A relay whose provider is the in-process mock, unpaced: its stream fails right after its last chunk. */
let inProcess: RelayUnderTest;
// The in-process mock (config) and the one read directly answer alike: filler to the output limit.
const UNPACED = { latencyMs: 0, chunkIntervalMs: 0, chunks: 8, answer: "fill" } as const;

/**
 * The client's fetch: the runtime's cut-safe fetch, which is the global fetch on Deno. Bun's
 * global fetch loses the received bytes of any body whose connection ends early (the relay's
 * or anyone's), so on Bun the client reads over node:http, as the relay does upstream with
 * `server.upstreamClient: "node-http"`.
 */
let clientFetch: (url: string, init: RequestInit) => Promise<Response>;

/** POSTs `body` as JSON through the relay at `url` with the harness key. */
function post(url: string, path: string, body: unknown, headers: Record<string, string> = {}): Promise<Response> {
  return clientFetch(`${url}${path}`, {
    method: "POST",
    headers: { authorization: `Bearer ${TEST_KEY}`, "content-type": "application/json", ...headers },
    body: JSON.stringify(body),
  });
}

before(async () => {
  clientFetch = (await currentRuntime()).cutSafeFetch;
  upstream = await startCuttingUpstream(CHUNKS);
  // The upstream client that hands on every byte of a dropped connection (on Bun, node:http).
  relay = await startRelay(upstream.url, { server: { host: "127.0.0.1", port: 0, shutdownGraceMs: 2000, upstreamClient: "node-http" } });
  inProcess = await startRelay("http://unused.invalid", { providers: { mock: { type: "mock", ...UNPACED } } });
});

after(async () => {
  await inProcess.stop();
  await relay.stop();
  await upstream.stop();
});

/** Reads a body until it fails; returns the text received before, or throws if it ended cleanly. */
async function textBeforeError(body: ReadableStream<Uint8Array>): Promise<string> {
  const reader = body.getReader();
  const decoder = new TextDecoder();
  let text = "";
  for (;;) {
    let read: Awaited<ReturnType<typeof reader.read>>;
    try {
      read = await reader.read();
    } catch {
      return text + decoder.decode();
    }
    if (read.done) throw new Error(`the stream ended cleanly after ${JSON.stringify(text)}`);
    text += decoder.decode(read.value, { stream: true });
  }
}

describe("a provider stream that fails in the same turn as its last chunk", () => {
  for (const [path, model] of [["/v1/chat/completions", "mock-gpt"], ["/v1/messages", "mock-claude"]] as const) {
    test(`${path}: the client receives every event before the failure, then an error (${ROUNDS} rounds)`, async () => {
      // With the usage the caller asks for itself, the relay forwards the body as it is.
      const usage = path === "/v1/messages" ? {} : { stream_options: { include_usage: true } };
      const body = { model, messages: [{ role: "user", content: "hi" }], max_tokens: 8, stream: true, ...usage };
      const fault = { "x-mock-fault": "cut=4" };
      // What the mock itself sends before the cut, read straight from it.
      const direct = await createMock(UNPACED).fetch(new Request(`http://mock.test${path}`, { method: "POST", headers: fault, body: JSON.stringify(body) }));
      const expected = sseEvents(new TextEncoder().encode(await textBeforeError(direct.body!))).map(maskPerCallValues);
      assert.ok(expected.length >= 3, `the mock sent ${expected.length} events before its cut`);
      for (let round = 0; round < ROUNDS; round++) {
        const response = await post(inProcess.url, path, body, fault);
        assert.equal(response.status, 200);
        const events = sseEvents(new TextEncoder().encode(await textBeforeError(response.body!))).map(maskPerCallValues);
        assert.deepEqual(events, expected, `round ${round}`);
      }
    });
  }
});

describe("a provider that drops the connection mid-stream", () => {
  test(`fetch receives every byte it sent, then an error (${ROUNDS} rounds)`, async () => {
    for (let round = 0; round < ROUNDS; round++) {
      const response = await post(relay.url, "/v1/chat/completions", chatBody({ stream: true }));
      assert.equal(response.status, 200);
      assert.equal(await textBeforeError(response.body!), CHUNKS.join(""), `round ${round}`);
    }
  });

  test(`the OpenAI SDK streams every chunk it sent, then throws (${ROUNDS} rounds)`, async () => {
    const client = new OpenAI({ apiKey: TEST_KEY, baseURL: `${relay.url}/v1`, maxRetries: 0, timeout: 10_000, fetch: (url, init) => clientFetch(String(url), init ?? {}) });
    for (let round = 0; round < ROUNDS; round++) {
      const stream = await client.chat.completions.create({ model: "mock-gpt", messages: [{ role: "user", content: "hi" }], max_tokens: 8, stream: true });
      const parts: string[] = [];
      await assert.rejects(async () => {
        for await (const chunk of stream) parts.push(chunk.choices[0]?.delta.content ?? "");
      }, `round ${round}: the cut reaches the SDK as an error`);
      assert.deepEqual(parts, CHUNKS.map((_, i) => `part ${i}`), `round ${round}`);
    }
  });
});
