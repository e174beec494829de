import Anthropic from "@anthropic-ai/sdk";
import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import OpenAI from "openai";
import { mockServerFetch } from "../../../src/providers/mock/mock-serve.ts";
import { createMock } from "../../../src/providers/mock/mock-server.ts";
import { currentRuntime } from "../../../src/runtime/current-runtime.ts";
import type { Server } from "../../../src/runtime/runtime.ts";
import { startRelay, TEST_KEY, type RelayUnderTest } from "../../support/relay-harness.ts";

const OPENAI_SECRET = "sk-upstream-openai-7f3a";
const ANTHROPIC_SECRET = "sk-ant-upstream-91c2";

/** Headers of every request the upstream received. */
const received: { path: string; headers: Headers }[] = [];
let upstream: Server;
let relay: RelayUnderTest;

before(async () => {
  const mock = createMock({ latencyMs: 1, chunkIntervalMs: 1, chunks: 4 });
  const forward = mockServerFetch(mock);
  upstream = await (await currentRuntime()).serve({
    hostname: "127.0.0.1",
    port: 0,
    fetch: (request) => {
      received.push({ path: new URL(request.url).pathname, headers: new Headers(request.headers) });
      return forward(request);
    },
  });
  const base = `http://127.0.0.1:${upstream.port}`;
  relay = await startRelay(base, {
    providers: {
      oai: { type: "openai", baseUrl: `${base}/v1`, apiKey: OPENAI_SECRET, headers: { "openai-organization": "org-test" } },
      ant: { type: "anthropic", baseUrl: base, apiKey: ANTHROPIC_SECRET, version: "2023-06-01" },
    },
    models: { "gpt-public": { provider: "oai", model: "gpt-upstream" }, "claude-public": { provider: "ant", model: "claude-upstream" } },
  });
});

after(async () => {
  await relay.stop();
  await upstream.stop();
});

function last(): { path: string; headers: Headers } {
  const entry = received.at(-1);
  assert.ok(entry, "the upstream received a request");
  return entry;
}

describe("the caller's key is replaced by the provider's credentials", () => {
  test("openai provider: Bearer provider key, configured headers, upstream model name, no Renio key", async () => {
    const client = new OpenAI({ apiKey: TEST_KEY, baseURL: `${relay.url}/v1`, maxRetries: 0, timeout: 5_000 });
    const { data, response } = await client.chat.completions
      .create({ model: "gpt-public", messages: [{ role: "user", content: "hi" }], max_tokens: 2 })
      .withResponse();
    assert.equal(data.model, "gpt-upstream");
    const seen = last();
    assert.equal(seen.path, "/v1/chat/completions");
    assert.equal(seen.headers.get("authorization"), `Bearer ${OPENAI_SECRET}`);
    assert.equal(seen.headers.get("openai-organization"), "org-test");
    assert.equal(seen.headers.get("x-api-key"), null);
    assert.equal(seen.headers.get("x-request-id"), response.headers.get("x-request-id"));
    seen.headers.forEach((value, name) => assert.ok(!value.includes(TEST_KEY), `Renio key sent upstream in ${name}`));
  });

  test("anthropic provider: x-api-key provider key, anthropic-version kept from the client, no Renio key", async () => {
    const client = new Anthropic({ apiKey: TEST_KEY, baseURL: relay.url, maxRetries: 0, timeout: 5_000 });
    const message = await client.messages.create(
      { model: "claude-public", max_tokens: 2, messages: [{ role: "user", content: "hi" }] },
      { headers: { "anthropic-version": "2023-01-01", "anthropic-beta": "test-beta" } },
    );
    assert.equal(message.model, "claude-upstream");
    const seen = last();
    assert.equal(seen.path, "/v1/messages");
    assert.equal(seen.headers.get("x-api-key"), ANTHROPIC_SECRET);
    assert.equal(seen.headers.get("anthropic-version"), "2023-01-01");
    assert.equal(seen.headers.get("anthropic-beta"), "test-beta");
    assert.equal(seen.headers.get("authorization"), null);
    seen.headers.forEach((value, name) => assert.ok(!value.includes(TEST_KEY), `Renio key sent upstream in ${name}`));
  });

  test("anthropic provider: the configured anthropic-version when the client sends none", async () => {
    const response = await fetch(`${relay.url}/v1/messages`, {
      method: "POST",
      headers: { authorization: `Bearer ${TEST_KEY}`, "content-type": "application/json", cookie: "session=1" },
      body: JSON.stringify({ model: "claude-public", max_tokens: 2, messages: [{ role: "user", content: "hi" }] }),
    });
    assert.equal(response.status, 200);
    await response.arrayBuffer();
    const seen = last();
    assert.equal(seen.headers.get("anthropic-version"), "2023-06-01");
    assert.equal(seen.headers.get("cookie"), null, "cookies are never forwarded (docs/headers.md)");
  });
});
