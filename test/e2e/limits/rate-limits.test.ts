import Anthropic from "@anthropic-ai/sdk";
import assert from "node:assert/strict";
import process from "node:process";
import { after, before, describe, test } from "node:test";
import OpenAI from "openai";
import type { StorageConfig } from "../../../src/config/config-schema.ts";
import type { JournalEntry } from "../../../src/shared/journal-records.ts";
import type { Store } from "../../../src/storage/store.ts";
import { testPostgresUrl } from "../../support/postgres.ts";
import { startMockServer, startRelay, type MockServer, type RelayUnderTest } from "../../support/relay-harness.ts";
import { allEntries, chatBody, errorOf, finishedEntries, mockStats, openStore, post } from "../../support/relay-calls.ts";
import { eventually } from "../../support/sse-bytes.ts";
import { pgExec } from "../../support/store-targets.ts";

/** The relays' rate-limit clock: it moves only when a test says, so counts are exact. */
let now = Date.UTC(2026, 11, 3, 12, 0, 0);
const clock = () => now;

const SECRETS = {
  rpmOpenai: "sk-renio-rpm-openai-0001",
  rpmAnthropic: "sk-renio-rpm-anthropic-01",
  tpm: "sk-renio-tpm-key-000001",
  concurrent: "sk-renio-concurrent-0001",
  broke: "sk-renio-broke-key-00001",
  funded: "sk-renio-funded-key-0001",
};

/** The streamed chat body the tokens test sends with the SDK, and the token bound Renio reserves for it. */
const TPM_PARAMS = { model: "tpm-gpt", messages: [{ role: "user" as const, content: "hello" }], max_tokens: 100, stream: true as const };
const TPM_BOUND = new TextEncoder().encode(JSON.stringify(TPM_PARAMS)).byteLength + TPM_PARAMS.max_tokens;
/** Two calls in flight fit; a third is 1 token short. */
const TPM_LIMIT = 3 * TPM_BOUND - 1;

let mock: MockServer;
let relay: RelayUnderTest;
let store: Store;

before(async () => {
  mock = await startMockServer();
  relay = await startRelay(
    mock.url,
    {
      models: { "mock-gpt": { provider: "mock" }, "mock-claude": { provider: "mock" }, "tpm-gpt": { provider: "mock" } },
      keys: [
        { id: "rpm-openai", secret: SECRETS.rpmOpenai, project: "apps" },
        { id: "rpm-anthropic", secret: SECRETS.rpmAnthropic, project: "claude-apps" },
        { id: "tpm", secret: SECRETS.tpm, project: "apps" },
        { id: "concurrent", secret: SECRETS.concurrent, project: "apps" },
        { id: "broke", secret: SECRETS.broke, project: "one-a-minute" },
        { id: "funded", secret: SECRETS.funded, project: "one-a-minute" },
      ],
      budgets: [{ id: "broke-zero", scope: { key: "broke" }, period: "total", limit: 0 }],
      rateLimits: [
        { scope: { key: "rpm-openai" }, requestsPerMinute: 60 },
        { scope: { project: "claude-apps" }, requestsPerMinute: 60, tokensPerMinute: 1_000_000 },
        { scope: { model: "tpm-gpt" }, tokensPerMinute: TPM_LIMIT },
        { scope: { key: "concurrent" }, concurrent: 1 },
        { scope: { project: "one-a-minute" }, requestsPerMinute: 1 },
      ],
    },
    { clock },
  );
  store = await openStore(relay.config.storage);
});

after(async () => {
  await store.close();
  await relay.stop();
  await mock.stop();
});

type Fetcher = (url: string | URL | Request, init?: RequestInit) => Promise<Response>;

/** What an SDK's fetch saw: every response's status and headers, and a hook run on each 429 before the SDK sees it. */
function recordingFetch(on429: (response: Response) => Promise<void> | void = () => {}) {
  const seen: { status: number; headers: Headers; body: string }[] = [];
  const fetcher: Fetcher = async (url, init) => {
    const response = await fetch(url, init);
    if (response.status !== 429) {
      seen.push({ status: response.status, headers: response.headers, body: "" });
      return response;
    }
    const body = await response.text();
    seen.push({ status: response.status, headers: response.headers, body });
    await on429(response);
    return new Response(body, { status: response.status, headers: response.headers });
  };
  return { seen, fetch: fetcher };
}

/** The SDKs wait what `retry-after-ms` says; the relay's clock moves by the same amount. */
const advanceByRetryAfter = (response: Response) => {
  now += Number(response.headers.get("retry-after-ms"));
};

function bearer(secret: string): Record<string, string> {
  return { authorization: `Bearer ${secret}` };
}

/** The journal entries of `keyId` once `count` of them are finished. */
async function finishedOf(keyId: string, count: number): Promise<JournalEntry[]> {
  let entries: JournalEntry[] = [];
  assert.ok(
    await eventually(async () => {
      entries = (await allEntries(store)).filter((entry) => entry.keyId === keyId && entry.finishedAt !== null);
      return entries.length >= count;
    }),
    `${count} entries of ${keyId} were journaled`,
  );
  return entries;
}

describe("requests per minute", () => {
  test("OpenAI route: 60 concurrent calls admitted, the 61st refused with the headers and journaled refused; the SDK's retry succeeds", async () => {
    const received = (await mockStats(mock.url)).received;
    const burst = await Promise.all(Array.from({ length: 60 }, () => post(relay.url, "/v1/chat/completions", chatBody(), bearer(SECRETS.rpmOpenai))));
    assert.deepEqual(new Set(burst.map((r) => r.status)), new Set([200]));
    const remaining = burst.map((r) => Number(r.headers.get("x-ratelimit-remaining-requests"))).sort((a, b) => a - b);
    assert.deepEqual(remaining, Array.from({ length: 60 }, (_, i) => i), "each call reports what is left after it");
    for (const response of burst) assert.equal(response.headers.get("x-ratelimit-limit-requests"), "60");
    await Promise.all(burst.map((r) => r.arrayBuffer()));

    const refused = await post(relay.url, "/v1/chat/completions", chatBody(), bearer(SECRETS.rpmOpenai));
    assert.equal(refused.status, 429);
    assert.equal(refused.headers.get("retry-after"), "1");
    assert.equal(refused.headers.get("retry-after-ms"), "1000");
    assert.equal(refused.headers.get("x-ratelimit-limit-requests"), "60");
    assert.equal(refused.headers.get("x-ratelimit-remaining-requests"), "0");
    assert.equal(refused.headers.get("x-ratelimit-reset-requests"), "1m0s");
    const body = (await refused.json()) as { error: { type: string; code: string; message: string } };
    assert.equal(body.error.type, "rate_limit_error");
    assert.equal(body.error.code, "rate_limit_exceeded");
    assert.equal(body.error.message, "Rate limit reached for key rpm-openai: 60 requests per minute; retry in 1 s");
    assert.equal((await mockStats(mock.url)).received - received, 60, "the refused call never reached the provider");
    const entries = await finishedOf("rpm-openai", 61);
    const refusals = entries.filter((entry) => entry.outcome === "refused");
    assert.equal(refusals.length, 1, "one refused entry, no admitted one");
    assert.deepEqual([refusals[0]!.status, refusals[0]!.errorCode], [429, "rate_limit_exceeded"]);

    const recorder = recordingFetch(advanceByRetryAfter);
    const client = new OpenAI({ apiKey: SECRETS.rpmOpenai, baseURL: `${relay.url}/v1`, maxRetries: 1, timeout: 10_000, fetch: recorder.fetch });
    const { data, response } = await client.chat.completions.create({ model: "mock-gpt", messages: [{ role: "user", content: "hi" }], max_tokens: 16 }).withResponse();
    assert.equal(data.object, "chat.completion");
    assert.deepEqual(recorder.seen.map((r) => r.status), [429, 200], "the SDK backed off on its own and its retry was admitted");
    assert.equal(response.headers.get("x-ratelimit-remaining-requests"), "0");
    assert.equal(response.headers.get("x-ratelimit-reset-requests"), "1m0s");
  });

  test("Anthropic route: a project's limit, anthropic-ratelimit-* headers (RFC 3339 resets), and the SDK's retry succeeds", async () => {
    const body = { model: "mock-claude", max_tokens: 16, messages: [{ role: "user", content: "hello" }] };
    const burst = await Promise.all(Array.from({ length: 60 }, () => post(relay.url, "/v1/messages", body, { ...bearer(SECRETS.rpmAnthropic), "anthropic-version": "2023-06-01" })));
    assert.deepEqual(new Set(burst.map((r) => r.status)), new Set([200]));
    await Promise.all(burst.map((r) => r.arrayBuffer()));
    const recorder = recordingFetch(advanceByRetryAfter);
    const client = new Anthropic({ apiKey: SECRETS.rpmAnthropic, baseURL: relay.url, maxRetries: 1, timeout: 10_000, fetch: recorder.fetch });
    const resetAt = new Date(Math.ceil((now + 60_000) / 1000) * 1000).toISOString().replace(".000Z", "Z");
    const { data, response } = await client.messages.create(body as Anthropic.MessageCreateParamsNonStreaming).withResponse();
    assert.equal(data.type, "message");
    assert.deepEqual(recorder.seen.map((r) => r.status), [429, 200]);
    const [limited] = recorder.seen;
    assert.equal(limited!.headers.get("retry-after"), "1");
    assert.equal(limited!.headers.get("anthropic-ratelimit-requests-limit"), "60");
    assert.equal(limited!.headers.get("anthropic-ratelimit-requests-remaining"), "0");
    assert.equal(limited!.headers.get("anthropic-ratelimit-requests-reset"), resetAt);
    assert.equal(limited!.headers.get("anthropic-ratelimit-tokens-limit"), "1000000");
    const envelope = JSON.parse(limited!.body) as { type: string; error: { type: string; message: string } };
    assert.equal(envelope.type, "error");
    assert.equal(envelope.error.type, "rate_limit_error");
    assert.match(envelope.error.message, /^Rate limit reached for project claude-apps: 60 requests per minute/);
    assert.equal(response.headers.get("anthropic-ratelimit-requests-remaining"), "0");
    assert.equal(response.headers.get("x-ratelimit-remaining-requests"), null, "the OpenAI dialect is not mixed in");
  });
});

describe("tokens per minute", () => {
  test("reserves each call's bound while it runs, refuses the call that does not fit, the SDK's retry fits after the refill; usage settles", async () => {
    const client = (fetcher: Fetcher = fetch, maxRetries = 0) => new OpenAI({ apiKey: SECRETS.tpm, baseURL: `${relay.url}/v1`, maxRetries, timeout: 10_000, fetch: fetcher });
    const holding = new AbortController();
    // Two streams held open by the mock (a chunk every 5 s): their bounds stay reserved.
    const held = [];
    for (let i = 0; i < 2; i++) {
      const sent = recordingFetch();
      held.push(await client(sent.fetch).chat.completions.create(TPM_PARAMS, { headers: { "x-mock-fault": "slow=5000" }, signal: holding.signal }).withResponse());
    }
    assert.deepEqual(held.map((h) => h.response.headers.get("x-ratelimit-remaining-tokens")), [String(TPM_LIMIT - TPM_BOUND), String(TPM_LIMIT - 2 * TPM_BOUND)]);

    const recorder = recordingFetch(advanceByRetryAfter);
    const third = await client(recorder.fetch, 1).chat.completions.create(TPM_PARAMS).withResponse();
    assert.deepEqual(recorder.seen.map((r) => r.status), [429, 200]);
    const [limited] = recorder.seen;
    const waitMs = Math.ceil((60_000 * 1) / TPM_LIMIT);
    assert.equal(limited!.headers.get("retry-after-ms"), String(waitMs), "one token short: the time one token takes to refill");
    assert.equal(limited!.headers.get("x-ratelimit-limit-tokens"), String(TPM_LIMIT));
    assert.equal(limited!.headers.get("x-ratelimit-remaining-tokens"), String(TPM_BOUND - 1));
    assert.equal(limited!.headers.get("x-ratelimit-limit-requests"), null, "no requests limit applies");
    assert.match(JSON.parse(limited!.body).error.message, new RegExp(`^Rate limit reached for model tpm-gpt: ${TPM_LIMIT} tokens per minute`));
    for await (const _ of third.data);
    holding.abort();
    // Its unused tokens come back when it ends: wait for that before reading the counts below.
    await finishedEntries(store, [third.response.headers.get("x-request-id")!]);

    // A full refill, then a JSON call: it settles (before it answers) from the usage the provider reported.
    now += 60_000;
    const body = chatBody({ model: "tpm-gpt" });
    const first = await post(relay.url, "/v1/chat/completions", body, bearer(SECRETS.tpm));
    const usage = ((await first.json()) as { usage: { total_tokens: number } }).usage;
    const second = await post(relay.url, "/v1/chat/completions", body, bearer(SECRETS.tpm));
    await second.arrayBuffer();
    assert.equal(
      Number(second.headers.get("x-ratelimit-remaining-tokens")),
      Number(first.headers.get("x-ratelimit-remaining-tokens")) - usage.total_tokens,
      "the first call's unused reservation came back; only its reported usage stays counted",
    );
  });
});

describe("concurrent calls", () => {
  const anthropic = (fetcher: Fetcher = fetch, maxRetries = 0) => new Anthropic({ apiKey: SECRETS.concurrent, baseURL: relay.url, maxRetries, timeout: 10_000, fetch: fetcher });
  const message = { model: "mock-claude", max_tokens: 16, messages: [{ role: "user" as const, content: "hello" }] };

  test("a second call while one streams is refused; the slot is freed when the client aborts, and the SDK's retry gets it", async () => {
    const holding = new AbortController();
    const held = await anthropic().messages.create({ ...message, stream: true }, { headers: { "x-mock-fault": "slow=5000" }, signal: holding.signal }).withResponse();
    const heldId = held.response.headers.get("x-request-id")!;
    const recorder = recordingFetch(async () => {
      holding.abort();
      await finishedEntries(store, [heldId]);
    });
    const reply = await anthropic(recorder.fetch, 1).messages.create(message);
    assert.equal(reply.type, "message");
    assert.deepEqual(recorder.seen.map((r) => r.status), [429, 200]);
    const [limited] = recorder.seen;
    assert.equal(limited!.headers.get("retry-after"), "1");
    assert.equal(limited!.headers.get("retry-after-ms"), "1000");
    assert.match(JSON.parse(limited!.body).error.message, /^Rate limit reached for key concurrent: 1 concurrent call;/);
    const entries = await finishedEntries(store, [heldId]);
    assert.equal(entries.get(heldId)!.outcome, "client_aborted");
  });

  test("the slot is freed when the provider fails or cuts the stream", async () => {
    const failed = await post(relay.url, "/v1/messages", message, { ...bearer(SECRETS.concurrent), "x-mock-fault": "status=500" });
    assert.equal(failed.status, 500);
    await failed.arrayBuffer();
    // The client sees the cut (before or after the response head, as the runtime sends it) once the relay has ended the call.
    await assert.rejects(post(relay.url, "/v1/messages", { ...message, stream: true }, { ...bearer(SECRETS.concurrent), "x-mock-fault": "cut=2" }).then((r) => r.arrayBuffer()));
    const next = await anthropic().messages.create(message);
    assert.equal(next.type, "message", "admitted at once: neither failed call kept the slot");
  });
});

describe("calls refused after the rate-limit check", () => {
  test("a budget refusal gives the request back: it was never sent, so it does not count", async () => {
    const refused = await post(relay.url, "/v1/chat/completions", chatBody(), bearer(SECRETS.broke));
    assert.equal(refused.status, 429);
    assert.equal((await errorOf(refused)).code, "budget_exceeded");
    const admitted = await post(relay.url, "/v1/chat/completions", chatBody(), bearer(SECRETS.funded));
    assert.equal(admitted.status, 200, "the project's one request a minute is still there");
    assert.equal(admitted.headers.get("x-ratelimit-remaining-requests"), "0");
    await admitted.arrayBuffer();
    const limited = await post(relay.url, "/v1/chat/completions", chatBody(), bearer(SECRETS.funded));
    assert.equal((await errorOf(limited)).code, "rate_limit_exceeded");
  });
});

describe("several relays sharing PostgreSQL", () => {
  test("each relay enforces the whole limit on its own (per instance: N relays admit up to N × the limit)", async () => {
    const base = testPostgresUrl();
    const name = `renio_ratelimits_${process.pid}`;
    await pgExec(base, `create database ${name}`);
    const url = new URL(base);
    url.pathname = `/${name}`;
    const storage: StorageConfig = { type: "postgres", url: url.toString(), poolSize: 4 };
    const overrides = { storage, rateLimits: [{ scope: { key: "test" }, requestsPerMinute: 3 }] };
    const relays = [await startRelay(mock.url, overrides, { clock }), await startRelay(mock.url, overrides, { clock })];
    const shared = await openStore(storage);
    try {
      for (const one of relays) {
        const statuses = [];
        for (let i = 0; i < 4; i++) {
          const response = await post(one.url, "/v1/chat/completions", chatBody());
          statuses.push(response.status);
          if (response.status === 429) assert.equal((await errorOf(response)).code, "rate_limit_exceeded");
          else await response.arrayBuffer();
        }
        assert.deepEqual(statuses, [200, 200, 200, 429]);
      }
      let entries: JournalEntry[] = [];
      assert.ok(await eventually(async () => (entries = (await allEntries(shared)).filter((e) => e.finishedAt !== null)).length === 8));
      assert.equal(entries.filter((e) => e.outcome === "ok").length, 6, "3 + 3 calls reached the provider: twice the limit across two relays");
      assert.equal(entries.filter((e) => e.errorCode === "rate_limit_exceeded").length, 2);
    } finally {
      await shared.close();
      for (const one of relays) await one.stop();
    }
  });
});
