import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import OpenAI from "openai";
import { mockServerFetch } from "../../../src/providers/mock/mock-serve.ts";
import { createMock } from "../../../src/providers/mock/mock-server.ts";
import { currentRuntime } from "../../../src/runtime/current-runtime.ts";
import type { Server } from "../../../src/runtime/runtime.ts";
import type { Store } from "../../../src/storage/store.ts";
import { TEST_KEY, type RelayUnderTest } from "../../support/relay-harness.ts";
import { finishedEntries } from "../../support/relay-calls.ts";
import { openRelay } from "../../support/with-relay.ts";

const AZURE_KEY = "azure-key-5d1e";
const CLIENT_SECRET = "entra-secret-a9b8";

/** Azure's answer when the prompt trips its content filter (OpenAI envelope, Azure's innererror). */
const CONTENT_FILTER_ERROR = {
  error: {
    message: "The response was filtered due to the prompt triggering Azure OpenAI's content management policy.",
    type: null,
    param: "prompt",
    code: "content_filter",
    status: 400,
    innererror: { code: "ResponsibleAIPolicyViolation", content_filter_result: { hate: { filtered: true, severity: "high" } } },
  },
};

/** What the scripted Azure resource received. */
const received: { url: URL; headers: Headers }[] = [];
const tokenForms: URLSearchParams[] = [];
let upstream: Server;
let relay: RelayUnderTest;
let store: Store;
let stopRelay: () => Promise<void>;

before(async () => {
  const forward = mockServerFetch(createMock({ latencyMs: 1, chunkIntervalMs: 1, chunks: 4 }));
  upstream = await (await currentRuntime()).serve({
    hostname: "127.0.0.1",
    port: 0,
    async fetch(request) {
      const url = new URL(request.url);
      if (url.pathname === "/tenant-1/oauth2/v2.0/token") {
        tokenForms.push(new URLSearchParams(await request.text()));
        return Response.json({ token_type: "Bearer", expires_in: 3600, access_token: `entra-token-${tokenForms.length}` });
      }
      if (url.pathname === "/tenant-refuses/oauth2/v2.0/token") return Response.json({ error: "invalid_client", error_description: `AADSTS7000215: Invalid client secret ${CLIENT_SECRET}` }, { status: 401 });
      received.push({ url, headers: new Headers(request.headers) });
      if (url.pathname.startsWith("/openai/deployments/gpt-filtered/")) return Response.json(CONTENT_FILTER_ERROR, { status: 400 });
      if (url.pathname.startsWith("/openai/deployments/gpt-down/")) return Response.json({ error: { message: "The deployment is overloaded", type: null, code: "overloaded" } }, { status: 503 });
      // Azure's routes, answered in the OpenAI format Azure uses.
      const path = url.pathname.replace(/^\/openai\/deployments\/[^/]+\//, "/v1/").replace(/^\/openai\/(v1\/)?/, "/v1/");
      return forward(new Request(new URL(path, url), { method: "POST", headers: request.headers, body: await request.arrayBuffer() }));
    },
  });
  const base = `http://127.0.0.1:${upstream.port}`;
  ({ relay, store, stop: stopRelay } = await openRelay(base, {
    providers: {
      classic: { type: "azure", baseUrl: base, apiKey: AZURE_KEY, apiVersion: "2024-10-21", location: "swedencentral", region: "eu" },
      v1: { type: "azure", baseUrl: base, api: "v1", entra: { tenantId: "tenant-1", clientId: "client-1", clientSecret: CLIENT_SECRET, tokenUrl: `${base}/tenant-1/oauth2/v2.0/token` }, region: "eu" },
      refused: { type: "azure", baseUrl: base, api: "v1", entra: { tenantId: "tenant-refuses", clientId: "client-1", clientSecret: CLIENT_SECRET, tokenUrl: `${base}/tenant-refuses/oauth2/v2.0/token` } },
    },
    models: {
      "gpt-eu": { provider: "classic", model: "gpt-4o-mini" },
      "gpt-eu-v1": { provider: "v1", model: "gpt-4o-mini" },
      "gpt-filtered": { provider: "classic", model: "gpt-filtered" },
      "gpt-refused": { provider: "refused", model: "gpt-4o-mini" },
      "gpt-eu-routed": { targets: [{ provider: "classic", model: "gpt-down" }], fallbacks: ["gpt-eu-backup"], retry: { maxAttempts: 1 } },
      "gpt-eu-backup": { provider: "classic", model: "gpt-4o-eu-backup" },
    },
    prices: { "gpt-filtered": { input: 0.15, output: 0.6 } },
  }));
});

after(async () => {
  await stopRelay();
  await upstream.stop();
});

function client(): OpenAI {
  return new OpenAI({ apiKey: TEST_KEY, baseURL: `${relay.url}/v1`, maxRetries: 0, timeout: 5_000 });
}

function last(): { url: URL; headers: Headers } {
  const entry = received.at(-1);
  assert.ok(entry, "the Azure resource received a request");
  return entry;
}

describe("azure provider through the official openai client", () => {
  test("classic deployments: deployment from the target's model, api-version, api-key header; usage and cost journaled", async () => {
    const { data, response } = await client().chat.completions
      .create({ model: "gpt-eu", messages: [{ role: "user", content: "hi" }], max_tokens: 3 })
      .withResponse();
    assert.equal(data.usage?.completion_tokens, 3);
    const seen = last();
    assert.equal(seen.url.pathname, "/openai/deployments/gpt-4o-mini/chat/completions");
    assert.equal(seen.url.searchParams.get("api-version"), "2024-10-21");
    assert.equal(seen.headers.get("api-key"), AZURE_KEY);
    assert.equal(seen.headers.get("authorization"), null, "the caller's Renio key is not forwarded");
    const id = response.headers.get("x-request-id")!;
    const entry = (await finishedEntries(store, [id])).get(id)!;
    assert.deepEqual([entry.outcome, entry.provider, entry.outputTokens], ["ok", "classic", 3]);
    assert.ok((entry.cost ?? 0) > 0, "the call is charged at gpt-4o-mini's price");
  });

  test("classic deployments: embeddings per deployment, streams with usage, Responses per resource", async () => {
    const embedding = await client().embeddings.create({ model: "gpt-eu", input: "hello" });
    assert.ok(embedding.data.length > 0);
    assert.equal(last().url.pathname, "/openai/deployments/gpt-4o-mini/embeddings");
    const stream = await client().chat.completions.create({ model: "gpt-eu", messages: [{ role: "user", content: "hi" }], max_tokens: 4, stream: true, stream_options: { include_usage: true } });
    let tokens = 0;
    for await (const chunk of stream) if (chunk.usage) tokens = chunk.usage.completion_tokens;
    assert.equal(tokens, 4);
    const response = await client().responses.create({ model: "gpt-eu", input: "hi", max_output_tokens: 3 });
    assert.equal(response.status, "completed");
    assert.equal(last().url.pathname, "/openai/responses", "the Responses API is per resource, the model in the body");
    assert.equal(last().url.searchParams.get("api-version"), "2024-10-21");
  });

  test("classic deployments: each attempt's deployment is its routed target's upstream model, a fallback's included", async () => {
    const sent = received.length;
    const { data, response } = await client().chat.completions
      .create({ model: "gpt-eu-routed", messages: [{ role: "user", content: "hi" }], max_tokens: 2 })
      .withResponse();
    assert.equal(data.usage?.completion_tokens, 2);
    assert.deepEqual(received.slice(sent).map((entry) => entry.url.pathname), ["/openai/deployments/gpt-down/chat/completions", "/openai/deployments/gpt-4o-eu-backup/chat/completions"]);
    const id = response.headers.get("x-request-id")!;
    const entry = (await finishedEntries(store, [id])).get(id)!;
    assert.deepEqual([entry.outcome, entry.provider, entry.upstreamModel], ["ok", "classic", "gpt-4o-eu-backup"]);
  });

  test("v1 API with Entra ID: form fields of the client-credentials grant, Bearer token reused across calls", async () => {
    const before = tokenForms.length;
    for (let i = 0; i < 2; i++) {
      const answer = await client().chat.completions.create({ model: "gpt-eu-v1", messages: [{ role: "user", content: "hi" }], max_tokens: 2 });
      assert.equal(answer.usage?.completion_tokens, 2);
      const seen = last();
      assert.equal(seen.url.pathname, "/openai/v1/chat/completions");
      assert.equal(seen.url.search, "");
      assert.match(seen.headers.get("authorization") ?? "", /^Bearer entra-token-\d+$/);
      assert.equal(seen.headers.get("api-key"), null);
    }
    assert.equal(tokenForms.length - before, 1, "one token serves both calls");
    const form = tokenForms.at(-1)!;
    assert.deepEqual(Object.fromEntries(form), { grant_type: "client_credentials", client_id: "client-1", client_secret: CLIENT_SECRET, scope: "https://cognitiveservices.azure.com/.default" });
    const response = await client().responses.create({ model: "gpt-eu-v1", input: "hi", max_output_tokens: 3 });
    assert.equal(response.status, "completed");
    assert.equal(last().url.pathname, "/openai/v1/responses");
  });

  test("a content-filter error reaches the caller in the OpenAI envelope with Azure's code, and is journaled uncharged", async () => {
    const error = await client().chat.completions.create({ model: "gpt-filtered", messages: [{ role: "user", content: "bad" }], max_tokens: 3 }).then(
      () => assert.fail("the filtered call succeeded"),
      (caught: unknown) => caught,
    );
    assert.ok(error instanceof OpenAI.BadRequestError, String(error));
    assert.equal(error.code, "content_filter");
    assert.equal(error.param, "prompt");
    const id = error.headers?.get("x-request-id") ?? "";
    const entry = (await finishedEntries(store, [id])).get(id)!;
    assert.equal(entry.status, 400);
    assert.equal(entry.cost ?? 0, 0);
  });

  test("a refused Entra token request: 502 naming the provider and status, nothing sent upstream, no secret", async () => {
    const sent = received.length;
    const error = await client().chat.completions.create({ model: "gpt-refused", messages: [{ role: "user", content: "hi" }], max_tokens: 2 }).then(
      () => assert.fail("the call succeeded without a token"),
      (caught: unknown) => caught,
    );
    assert.ok(error instanceof OpenAI.APIError);
    assert.equal(error.status, 502, error.message);
    assert.match(error.message, /Provider `refused`: Microsoft Entra ID token request failed \(HTTP 401\)/);
    assert.ok(!JSON.stringify(error.error).includes(CLIENT_SECRET));
    assert.equal(received.length, sent, "no call reached the Azure resource");
  });

  test("no Azure credential in the journal", async () => {
    const { entries } = await store.listJournal({ limit: 50 });
    const text = JSON.stringify(entries);
    for (const secret of [AZURE_KEY, CLIENT_SECRET, "entra-token-"]) assert.ok(!text.includes(secret), `${secret} journaled`);
  });
});
