import Anthropic from "@anthropic-ai/sdk";
import assert from "node:assert/strict";
import { request as httpRequest } from "node:http";
import { after, before, describe, test } from "node:test";
import OpenAI from "openai";
import { periodEnd, periodOf } from "../../../src/budgets/budget-plan.ts";
import type { JournalEntry } from "../../../src/shared/journal-records.ts";
import { startMockServer, startRelay, TEST_KEY, type MockServer, type RelayUnderTest } from "../../support/relay-harness.ts";
import { chatBody, mockStats, post } from "../../support/relay-calls.ts";

const BROKE_KEY = "sk-renio-broke-total-key-0002";
const DAILY_KEY = "sk-renio-broke-daily-key-0003";
const LIMITED_KEY = "sk-renio-limited-model-key-0004";
const ADMIN_TOKEN = "admin-token-for-retry-tests-0123";

let mock: MockServer;
let relay: RelayUnderTest;

before(async () => {
  mock = await startMockServer();
  relay = await startRelay(mock.url, {
    server: { host: "127.0.0.1", port: 0, shutdownGraceMs: 2000, adminToken: ADMIN_TOKEN },
    keys: [
      { id: "test", secret: TEST_KEY, project: "tests" },
      { id: "broke", secret: BROKE_KEY, project: "broke" },
      { id: "daily", secret: DAILY_KEY, project: "daily" },
      { id: "limited", secret: LIMITED_KEY, project: "tests", models: ["mock-gpt"] },
    ],
    // Far too small for any call: every call of these keys is refused for budget.
    budgets: [
      { id: "broke-total", scope: { key: "broke" }, period: "total", limit: 0.000001, mode: "strict" },
      { id: "daily-cap", scope: { key: "daily" }, period: "day", limit: 0.000001, mode: "strict" },
    ],
  });
});

after(async () => {
  await relay.stop();
  await mock.stop();
});

/** A fetch for an SDK that counts the requests the SDK makes (first attempt and retries). */
function countingFetch(): { fetch: typeof fetch; attempts: () => number } {
  let attempts = 0;
  const counting = ((input: string | URL | Request, init?: RequestInit) => {
    attempts++;
    return fetch(input, init);
  }) as typeof fetch;
  return { fetch: counting, attempts: () => attempts };
}

/** Journal entries of a key refused for budget (/admin/journal applies the admission log first: current). */
async function budgetRefusals(keyId: string): Promise<number> {
  const response = await fetch(`${relay.url}/admin/journal?key=${keyId}&outcome=refused`, { headers: { authorization: `Bearer ${ADMIN_TOKEN}` } });
  assert.equal(response.status, 200);
  return ((await response.json()) as { data: JournalEntry[] }).data.filter((e) => e.errorCode === "budget_exceeded").length;
}

describe("what the official SDKs read: x-should-retry, retry-after, request-id", () => {
  test("openai: a budget refusal that no retry can change is tried once (x-should-retry: false)", async () => {
    const counter = countingFetch();
    const client = new OpenAI({ apiKey: BROKE_KEY, baseURL: `${relay.url}/v1`, fetch: counter.fetch });
    const before = (await mockStats(mock.url)).received;
    await assert.rejects(client.chat.completions.create({ model: "mock-gpt", messages: [{ role: "user", content: "hi" }], max_tokens: 8 }), (error: unknown) => {
      assert.ok(error instanceof OpenAI.RateLimitError);
      assert.equal(error.code, "budget_exceeded");
      assert.equal(error.headers?.get("x-should-retry"), "false");
      assert.equal(error.headers?.get("retry-after"), null, "a total budget never resets");
      return true;
    });
    assert.equal(counter.attempts(), 1, "the SDK did not retry");
    assert.equal((await mockStats(mock.url)).received, before, "nothing reached the provider");
    assert.equal(await budgetRefusals("broke"), 1, "one refused entry per logical call");
  });

  test("anthropic: the same refusal is tried once, and its requestID is the request-id header", async () => {
    const counter = countingFetch();
    const client = new Anthropic({ apiKey: BROKE_KEY, baseURL: relay.url, fetch: counter.fetch });
    await assert.rejects(client.messages.create({ model: "mock-claude", max_tokens: 8, messages: [{ role: "user", content: "hi" }] }), (error: unknown) => {
      assert.ok(error instanceof Anthropic.RateLimitError);
      assert.equal(error.headers?.get("x-should-retry"), "false");
      assert.ok(error.requestID, "requestID read from request-id");
      assert.equal(error.requestID, error.headers?.get("x-request-id"));
      return true;
    });
    assert.equal(counter.attempts(), 1, "the SDK did not retry");
  });

  test("a day budget's refusal says when it resets (retry-after), and not to retry before", async () => {
    const response = await post(relay.url, "/v1/chat/completions", chatBody(), { authorization: `Bearer ${DAILY_KEY}` });
    assert.equal(response.status, 429);
    await response.arrayBuffer();
    const now = Date.now();
    const expected = Math.ceil((periodEnd(periodOf("day", new Date(now)))! - now) / 1000);
    const retryAfter = Number(response.headers.get("retry-after"));
    assert.ok(Math.abs(retryAfter - expected) <= 2, `retry-after ${retryAfter}, expected about ${expected}`);
    // Within the SDKs' 60 s horizon a retry after the reset can succeed, so the SDK may retry.
    assert.equal(response.headers.get("x-should-retry"), expected > 60 ? "false" : null);
  });

  test("Renio's other refusals say x-should-retry: false", async () => {
    const cases: Array<[string, Record<string, string>, unknown, number]> = [
      ["/v1/chat/completions", { authorization: "Bearer sk-renio-unknown-key-0009" }, chatBody(), 401],
      ["/v1/chat/completions", { authorization: `Bearer ${LIMITED_KEY}` }, chatBody({ model: "mock-claude" }), 403],
      ["/v1/chat/completions", {}, chatBody({ model: "no-such-model" }), 404],
      ["/v1/chat/completions", {}, "{not json", 400],
      ["/v1/messages", {}, { model: "no-such-model", max_tokens: 4, messages: [] }, 404],
    ];
    for (const [path, headers, body, status] of cases) {
      const response = await post(relay.url, path, body, headers);
      assert.equal(response.status, status, `${path} ${status}`);
      assert.equal(response.headers.get("x-should-retry"), "false", `${path} ${status}`);
      assert.equal(response.headers.get("request-id"), path === "/v1/messages" ? response.headers.get("x-request-id") : null);
      await response.arrayBuffer();
    }
  });

  test("anthropic: a relayed message's request id is Renio's (x-request-id), JSON and streamed", async () => {
    const client = new Anthropic({ apiKey: TEST_KEY, baseURL: relay.url });
    const { data, response, request_id } = await client.messages.create({ model: "mock-claude", max_tokens: 8, messages: [{ role: "user", content: "hi" }] }).withResponse();
    assert.ok(data.content.length > 0);
    assert.ok(request_id, "request_id read from request-id");
    assert.equal(request_id, response.headers.get("x-request-id"));
    const stream = client.messages.stream({ model: "mock-claude", max_tokens: 8, messages: [{ role: "user", content: "hi" }] });
    const final = await stream.finalMessage();
    assert.ok(final.content.length > 0);
    assert.ok(stream.request_id, "stream request_id read from request-id");
  });
});

/** A request on a connection of its own (no pooled keep-alive connection), so a refused connect would show. */
function freshConnection(url: string, path: string, method: string, headers: Record<string, string>, body?: string): Promise<{ status: number; headers: Record<string, string | string[] | undefined>; body: string }> {
  return new Promise((resolve, reject) => {
    const req = httpRequest(`${url}${path}`, { method, headers, agent: false }, (res) => {
      let text = "";
      res.setEncoding("utf8");
      res.on("data", (chunk: string) => (text += chunk));
      res.on("end", () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body: text }));
      res.on("error", reject);
    });
    req.on("error", reject);
    req.end(body);
  });
}

describe("graceful shutdown as clients and load balancers see it", () => {
  test("while calls drain, new connections get 503 shutting_down with retry-after (SDKs retry it), /readyz 503, /healthz 200", async () => {
    const drainMock = await startMockServer({ chunks: 8 });
    const draining = await startRelay(drainMock.url, { server: { host: "127.0.0.1", port: 0, shutdownGraceMs: 20_000 } });
    try {
      // In flight: a stream of 8 chunks 600 ms apart.
      const inFlight = await post(draining.url, "/v1/chat/completions", chatBody({ stream: true }), { "x-mock-fault": "slow=600" });
      assert.equal(inFlight.status, 200);
      const reader = inFlight.body!.getReader();
      assert.ok(!(await reader.read()).done);
      const stopped = draining.service.shutdown();

      const auth = { authorization: `Bearer ${TEST_KEY}`, "content-type": "application/json" };
      const openai = await freshConnection(draining.url, "/v1/chat/completions", "POST", auth, JSON.stringify(chatBody()));
      assert.equal(openai.status, 503);
      assert.equal(openai.headers["retry-after"], "1");
      assert.deepEqual((JSON.parse(openai.body) as { error: { code: string; type: string } }).error.code, "shutting_down");
      const anthropic = await freshConnection(draining.url, "/v1/messages", "POST", auth, JSON.stringify({ model: "mock-claude", max_tokens: 4, messages: [] }));
      assert.equal(anthropic.status, 503);
      const envelope = JSON.parse(anthropic.body) as { type: string; error: { type: string; code: string } };
      assert.deepEqual([envelope.type, envelope.error.type, envelope.error.code], ["error", "overloaded_error", "shutting_down"]);
      assert.equal(anthropic.headers["request-id"], anthropic.headers["x-request-id"]);
      assert.equal((await freshConnection(draining.url, "/readyz", "GET", {})).status, 503);
      assert.equal((await freshConnection(draining.url, "/healthz", "GET", {})).status, 200);

      // The SDK waits the retry-after (1 s) and tries again: 2 attempts with maxRetries 1.
      const counter = countingFetch();
      const client = new OpenAI({ apiKey: TEST_KEY, baseURL: `${draining.url}/v1`, fetch: counter.fetch, maxRetries: 1 });
      await assert.rejects(client.chat.completions.create({ model: "mock-gpt", messages: [{ role: "user", content: "hi" }] }), (error: unknown) => {
        assert.ok(error instanceof OpenAI.InternalServerError);
        assert.equal(error.status, 503);
        assert.equal(error.code, "shutting_down");
        return true;
      });
      assert.equal(counter.attempts(), 2, "the SDK retried once after retry-after");

      // The call in flight runs to its end, then the relay stops.
      let rest = "";
      const decoder = new TextDecoder();
      for (;;) {
        const { done, value } = await reader.read();
        if (done) break;
        rest += decoder.decode(value, { stream: true });
      }
      assert.match(rest, /data: \[DONE\]/);
      await stopped;
    } finally {
      await draining.stop().catch(() => undefined);
      await drainMock.stop();
    }
  });
});
