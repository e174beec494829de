import assert from "node:assert/strict";
import { describe, test } from "node:test";
import Anthropic from "@anthropic-ai/sdk";
import { APIError } from "openai";
import type { JournalEntry } from "../../../src/shared/journal-records.ts";
import { admin, ADMIN_TOKEN } from "../../support/admin-api.ts";
import { freePort } from "../../support/free-port.ts";
import { routedRelayFixture } from "../../support/mock-targets.ts";
import { finishedEntries, post } from "../../support/relay-calls.ts";
import { readUntilCut } from "../../support/sse-bytes.ts";
import { TEST_KEY } from "../../support/relay-harness.ts";

/**
 * Retries end to end: the official SDKs (their own retries off) against a relay whose models
 * route to two mock targets on loopback, `a` preferred (higher priority) and `b` behind it.
 */

const PRICE = { input: 2, output: 4, maxOutputTokens: 1000 };
const CHAT = { messages: [{ role: "user" as const, content: "hello" }], max_tokens: 20 };
const deadUrl = `http://127.0.0.1:${await freePort()}`;

const fixture = routedRelayFixture(["a", "b"], (targets) => {
  const pair = { targets: [{ provider: "a", model: "mock-gpt", priority: 1 }, { provider: "b", model: "mock-gpt" }] };
  return {
    providers: { ...targets.providers(), dead: { type: "mock", baseUrl: deadUrl, connectTimeoutMs: 2000 }, dead2: { type: "mock", baseUrl: deadUrl } },
    models: {
      pair,
      "slow-first": { targets: [{ provider: "a", model: "mock-gpt", priority: 1, firstByteTimeoutMs: 300 }, { provider: "b", model: "mock-gpt" }] },
      "dead-first": { targets: [{ provider: "dead", model: "mock-gpt", priority: 1 }, { provider: "b", model: "mock-gpt" }] },
      "all-dead": [{ provider: "dead", model: "mock-gpt" }, { provider: "dead2", model: "mock-gpt" }],
      solo: { targets: [{ provider: "a", model: "mock-gpt" }], retry: { maxAttempts: 3, backoffMs: 1, maxBackoffMs: 5, maxRetryAfterMs: 1000 } },
      "slow-backoff": { targets: [{ provider: "a", model: "mock-gpt" }], retry: { maxAttempts: 2, backoffMs: 60_000, maxBackoffMs: 60_000 } },
    },
    server: { host: "127.0.0.1", port: 0, shutdownGraceMs: 2000, adminToken: ADMIN_TOKEN },
    // Cooldowns have tests of their own: here every call starts at `a`.
    routing: { maxRequestTimeoutMs: 60_000, cooldown: { failures: 1000 } },
    prices: { "mock-gpt": PRICE },
    // A total budget in observe mode: every call is priced and charged, none refused.
    budgets: [{ id: "all", scope: "total", period: "total", limit: 1000, mode: "observe" }],
  };
});

/** A chat completion through the SDK; its entry id and the attempts header. */
async function chat(model: string): Promise<{ id: string; attempts: string | null; content: string | null }> {
  const { data, response } = await fixture.openai.chat.completions.create({ model, ...CHAT }).withResponse();
  return { id: response.headers.get("x-request-id")!, attempts: response.headers.get("x-renio-attempts"), content: data.choices[0]?.message.content ?? null };
}

/** The SDK's error for a call that fails. */
async function failing(model: string, headers: Record<string, string> = {}): Promise<APIError> {
  try {
    await fixture.openai.chat.completions.create({ model, ...CHAT }, { headers });
  } catch (error) {
    assert.ok(error instanceof APIError, String(error));
    return error;
  }
  assert.fail("the call succeeded");
}

async function entryOf(id: string): Promise<JournalEntry> {
  return (await finishedEntries(fixture.opened.store, [id])).get(id)!;
}

/** provider:status-or-code of each attempt. */
function attemptsOf(entry: JournalEntry): string[] {
  return (entry.attempts ?? []).map((a) => `${a.provider}:${a.errorCode ?? a.status}`);
}

describe("retries: on another target, before anything reached the client", () => {
  test("every retryable status (408, 409, 429, 500, 502, 503, 504) moves the call to the next target", async () => {
    for (const status of [408, 409, 429, 500, 502, 503, 504]) {
      await fixture.targets.reset();
      await fixture.targets.script("a", { failFirst: 1, status });
      const call = await chat("pair");
      assert.ok(call.content !== null && call.content.length > 0);
      assert.equal(call.attempts, "2");
      assert.deepEqual([await fixture.targets.received("a"), await fixture.targets.received("b")], [1, 1], `status ${status}`);
      const entry = await entryOf(call.id);
      assert.deepEqual(attemptsOf(entry), [`a:upstream_${status}`, "b:200"]);
      assert.equal(entry.outcome, "ok");
      assert.equal(entry.provider, "b", "the entry's provider is the one that served");
      // A provider's error answer cannot have been billed: only the serving attempt is charged.
      assert.equal(entry.attempts![0]!.cost, 0);
      assert.equal(entry.cost, entry.attempts![1]!.cost);
      assert.equal(entry.costEstimated, false);
    }
  });

  test("a connection reset, a first-byte timeout and a refused connection are retried; the reset and the timeout are charged as possibly billed", async () => {
    await fixture.targets.script("a", { failFirst: 1, reset: true });
    const reset = await entryOf((await chat("pair")).id);
    assert.deepEqual(attemptsOf(reset), ["a:upstream_reset", "b:200"]);
    assert.equal(reset.attempts![0]!.cost, reset.reservedCost, "a reset after sending may have been billed: its reservation");
    assert.equal(reset.cost, reset.reservedCost! + reset.attempts![1]!.cost!);
    assert.equal(reset.costEstimated, true);

    await fixture.targets.reset();
    await fixture.targets.script("a", { failFirst: 1, delayMs: 3000 });
    const timeout = await entryOf((await chat("slow-first")).id);
    assert.deepEqual(attemptsOf(timeout), ["a:upstream_timeout", "b:200"]);
    assert.equal(timeout.attempts![0]!.cost, timeout.reservedCost);

    const refused = await entryOf((await chat("dead-first")).id);
    assert.deepEqual(attemptsOf(refused), ["dead:upstream_unreachable", "b:200"]);
    assert.equal(refused.attempts![0]!.cost, 0, "a refused connection cannot have been billed");
    assert.equal(refused.cost, refused.attempts![1]!.cost);
  });

  test("never on 400, 401, 403, 404, 413, 422: the provider's error reaches the client after one attempt", async () => {
    for (const status of [400, 401, 403, 404, 413, 422]) {
      await fixture.targets.reset();
      await fixture.targets.script("a", { failFirst: 1, status });
      const error = await failing("pair");
      assert.equal(error.status, status);
      assert.deepEqual([await fixture.targets.received("a"), await fixture.targets.received("b")], [1, 0], `status ${status}`);
      const entry = await entryOf(error.requestID!);
      assert.deepEqual(attemptsOf(entry), [`a:upstream_${status}`]);
      assert.equal(entry.cost, 0);
    }
  });

  test("a stream is not retried once its first byte reached the client: the cut is the client's", async () => {
    await fixture.targets.script("a", { failFirst: 1, cutAfterChunks: 1 });
    const response = await post(fixture.opened!.relay.url, "/v1/chat/completions", { model: "pair", ...CHAT, stream: true });
    assert.equal(response.status, 200);
    // How a cut shows depends on the client's HTTP stack (an error, or an early end): either way the answer is incomplete.
    const { text } = await readUntilCut(response);
    assert.doesNotMatch(text, /"finish_reason":"[a-z]/, "the client did not get a whole answer");
    assert.match(text, /^data: \{/m, "the first chunk reached the client");
    assert.equal(await fixture.targets.received("b"), 0);
    const entry = await entryOf(response.headers.get("x-request-id")!);
    assert.equal(entry.errorCode, "upstream_stream_cut");
    assert.deepEqual(attemptsOf(entry), ["a:upstream_stream_cut"]);
  });

  test("a stream cut before its first byte is retried: the client gets a whole answer from the next target", async () => {
    await fixture.targets.script("a", { failFirst: 1, cutAfterChunks: 0 });
    const { data: stream, response } = await fixture.openai.chat.completions.create({ model: "pair", ...CHAT, stream: true }).withResponse();
    let finished = false;
    for await (const chunk of stream) if (chunk.choices[0]?.finish_reason) finished = true;
    assert.equal(finished, true);
    const entry = await entryOf(response.headers.get("x-request-id")!);
    assert.deepEqual(attemptsOf(entry), ["a:upstream_reset", "b:200"]);
    assert.equal(entry.outcome, "ok");
  });

  test("the same target is tried again after a backoff, honouring a short retry-after-ms; a long retry-after ends the retries", async () => {
    await fixture.targets.script("a", { failFirst: 2, status: 429, retryAfterMs: 20 });
    const call = await chat("solo");
    assert.equal(call.attempts, "3");
    assert.equal(await fixture.targets.received("a"), 3);
    assert.deepEqual(attemptsOf(await entryOf(call.id)), ["a:upstream_429", "a:upstream_429", "a:200"]);

    await fixture.targets.reset();
    await fixture.targets.script("a", { failFirst: 1, status: 429, retryAfter: 30 });
    const error = await failing("solo");
    assert.equal(error.status, 429);
    assert.equal(error.headers?.get("retry-after"), "30", "the provider's own answer, passed through");
    assert.equal(await fixture.targets.received("a"), 1);
  });

  test("all targets down: the last provider error, or Renio's 502 saying how many attempts were made; nothing charged", async () => {
    await fixture.targets.script("a", { status: 503 });
    await fixture.targets.script("b", { status: 503 });
    const last = await failing("pair");
    assert.equal(last.status, 503);
    assert.equal(last.headers?.get("x-renio-attempts"), "2");
    const entry = await entryOf(last.requestID!);
    assert.deepEqual(attemptsOf(entry), ["a:upstream_503", "b:upstream_503"]);
    assert.equal(entry.cost, 0);

    const unreachable = await failing("all-dead");
    assert.equal(unreachable.status, 502);
    assert.equal((unreachable.error as { code?: string }).code, "upstream_unreachable");
    assert.equal(unreachable.headers?.get("x-renio-attempts"), "2");
    assert.match(unreachable.message, /2 attempts were made \((dead|dead2) upstream_unreachable, then this one\)/);
    const down = await entryOf(unreachable.requestID!);
    assert.equal(down.cost, 0);
    assert.equal(down.costEstimated, false);
    assert.equal(down.outcome, "upstream_error");
  });

  test("a client that goes away during the backoff stops the retries", async () => {
    await fixture.targets.script("a", { failFirst: 1, status: 503 });
    const lastFailure = async () => ((await admin<{ data: Array<{ provider: string; lastFailureAt: string | null; inFlight: number }> }>(fixture.opened.relay.url, "GET", "/targets")).body.data.find((t) => t.provider === "a"))!;
    const before = (await lastFailure()).lastFailureAt;
    const gone = new AbortController();
    const pending = post(fixture.opened.relay.url, "/v1/chat/completions", { model: "slow-backoff", ...CHAT }, {}, gone.signal);
    // The first attempt's failure is recorded as the relay starts its 30-60 s backoff.
    for (;;) {
      const a = await lastFailure();
      if (a.lastFailureAt !== before && a.inFlight === 0) break;
      await new Promise((resolve) => setTimeout(resolve, 5));
    }
    gone.abort();
    await pending.catch(() => undefined);
    let id: string | undefined;
    while (id === undefined) {
      id = (await fixture.opened.store.listJournal({ limit: 5 })).entries.find((e) => e.model === "slow-backoff")?.id;
      if (id === undefined) await new Promise((resolve) => setTimeout(resolve, 10));
    }
    // The entry finishes well before the 30 s backoff would have ended: the retry never came.
    const entry = await entryOf(id);
    assert.equal(entry.outcome, "client_aborted");
    assert.deepEqual(attemptsOf(entry), ["a:upstream_503"]);
    assert.equal(await fixture.targets.received("a"), 1);
  });

  test("x-renio-timeout-ms sets the call's deadline (retries included); a bad value is a 400", async () => {
    await fixture.targets.script("a", { delayMs: 3000 });
    await fixture.targets.script("b", { delayMs: 3000 });
    const late = await failing("pair", { "x-renio-timeout-ms": "250" });
    assert.equal(late.status, 504);
    assert.equal((late.error as { code?: string }).code, "upstream_timeout");
    assert.match(late.message, /did not answer within the call.s deadline/);
    assert.equal(await fixture.targets.received("b"), 0, "no time was left for another target");
    const bad = await failing("pair", { "x-renio-timeout-ms": "soon" });
    assert.equal(bad.status, 400);
    assert.match(bad.message, /x-renio-timeout-ms/);
  });

  test("Anthropic's route: an overloaded 529 moves the call to the next target", async () => {
    await fixture.targets.script("a", { failFirst: 1, status: 529 });
    const anthropic = new Anthropic({ apiKey: TEST_KEY, baseURL: fixture.opened.relay.url, maxRetries: 0, timeout: 20_000 });
    const { data, response } = await anthropic.messages.create({ model: "pair", max_tokens: 20, messages: [{ role: "user", content: "hello" }] }).withResponse();
    assert.equal(data.type, "message");
    assert.equal(response.headers.get("x-renio-attempts"), "2");
    assert.deepEqual(attemptsOf(await entryOf(response.headers.get("x-request-id")!)), ["a:upstream_529", "b:200"]);
  });
});
