import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import OpenAI from "openai";
import Anthropic from "@anthropic-ai/sdk";
import { currentRuntime } from "../../../src/runtime/current-runtime.ts";
import type { UpstreamInit } from "../../../src/upstream/node-http-fetch.ts";
import { startMockServer, startRelay, TEST_KEY, type MockServer, type RelayUnderTest } from "../../support/relay-harness.ts";

/**
 * The relay tells the upstream client whether a call's answer streams (`streams` on the fetch's
 * init): `auto` on Bun sends streams through the socket client up to a higher load than other
 * calls (src/app/upstream-client.ts). Watched on the runtime's own `fetch` (`upstreamClient: fetch`).
 */
describe("the streamed-answer hint reaches the upstream client", () => {
  let mock: MockServer;
  let relay: RelayUnderTest;
  const hints: Array<boolean | undefined> = [];

  before(async () => {
    mock = await startMockServer();
    const runtime = await currentRuntime();
    const upstreamFetch = (url: string, init: UpstreamInit) => (hints.push(init.streams), runtime.upstreamFetch(url, init));
    relay = await startRelay(mock.url, { server: { host: "127.0.0.1", port: 0, shutdownGraceMs: 2000, upstreamClient: "fetch" } }, { runtime: { ...runtime, upstreamFetch } });
  });
  after(async () => {
    await relay.stop();
    await mock.stop();
  });

  test("OpenAI SDK: a streamed call is sent with the hint, a complete one without", async () => {
    hints.length = 0;
    const client = new OpenAI({ apiKey: TEST_KEY, baseURL: `${relay.url}/v1`, maxRetries: 0, timeout: 5_000 });
    const whole = await client.chat.completions.create({ model: "mock-gpt", messages: [{ role: "user", content: "hi" }] });
    assert.ok(whole.choices[0]?.message.content);
    const stream = await client.chat.completions.create({ model: "mock-gpt", messages: [{ role: "user", content: "hi" }], stream: true });
    let chunks = 0;
    for await (const _chunk of stream) chunks++;
    assert.ok(chunks > 0);
    assert.deepEqual(hints, [false, true]);
  });

  test("Anthropic SDK: the same on the Messages API", async () => {
    hints.length = 0;
    const client = new Anthropic({ apiKey: TEST_KEY, baseURL: relay.url, maxRetries: 0, timeout: 5_000 });
    const stream = client.messages.stream({ model: "mock-claude", max_tokens: 32, messages: [{ role: "user", content: "hi" }] });
    const final = await stream.finalMessage();
    assert.equal(final.role, "assistant");
    const whole = await client.messages.create({ model: "mock-claude", max_tokens: 32, messages: [{ role: "user", content: "hi" }] });
    assert.equal(whole.role, "assistant");
    assert.deepEqual(hints, [true, false]);
  });
});
