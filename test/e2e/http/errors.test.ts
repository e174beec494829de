import Anthropic from "@anthropic-ai/sdk";
import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import OpenAI from "openai";
import type { MockStats } from "../../../src/providers/mock/mock-server.ts";
import { freePort } from "../../support/free-port.ts";
import { eventually } from "../../support/sse-bytes.ts";
import { TEST_KEY, type MockServer, type RelayUnderTest } from "../../support/relay-harness.ts";
import { startMockRelay } from "../../support/with-relay.ts";

/** The provider credential configured in the relay: it must never reach a client. */
const PROVIDER_SECRET = "sk-provider-SECRET-d41d8cd98f00b204";
const LIMITED_KEY = "sk-renio-limited-key-0002";
const MAX_BODY = 4096;
const FIRST_BYTE_TIMEOUT_MS = 300;

let mock: MockServer;
let relay: RelayUnderTest;
let stop: () => Promise<void>;
/** Every response seen by the tests, checked for leaks at the end. */
const seen: { label: string; headers: Headers; text: string }[] = [];

before(async () => {
  const dead = `http://127.0.0.1:${await freePort()}`;
  const timing = { firstByteTimeoutMs: FIRST_BYTE_TIMEOUT_MS, connectTimeoutMs: 1000 };
  ({ mock, relay, stop } = await startMockRelay({
    config: (mockUrl) => ({
      server: { host: "127.0.0.1", port: 0, shutdownGraceMs: 2000, maxBodyBytes: MAX_BODY },
      providers: {
        mock: { type: "mock", baseUrl: mockUrl, firstByteTimeoutMs: 5000 },
        "mock-as-openai": { type: "openai", baseUrl: `${mockUrl}/v1`, apiKey: PROVIDER_SECRET, ...timing },
        "mock-as-anthropic": { type: "anthropic", baseUrl: mockUrl, apiKey: PROVIDER_SECRET, ...timing },
        "dead-openai": { type: "openai", baseUrl: `${dead}/v1`, apiKey: PROVIDER_SECRET, ...timing },
        "dead-anthropic": { type: "anthropic", baseUrl: dead, apiKey: PROVIDER_SECRET, ...timing },
      },
      models: {
        "mock-gpt": { provider: "mock" },
        "mock-claude": { provider: "mock" },
        "keyed-gpt": { provider: "mock-as-openai", model: "upstream-gpt" },
        "keyed-claude": { provider: "mock-as-anthropic", model: "upstream-claude" },
        "dead-gpt": { provider: "dead-openai" },
        "dead-claude": { provider: "dead-anthropic" },
      },
      keys: [
        { id: "test", secret: TEST_KEY, project: "tests" },
        { id: "limited", secret: LIMITED_KEY, project: "tests", models: ["mock-gpt"] },
      ],
    }),
  }));
});

after(() => stop());

interface Reply {
  status: number;
  headers: Headers;
  text: string;
  json: Record<string, unknown>;
}

async function send(label: string, path: string, init: RequestInit & { base?: string } = {}): Promise<Reply> {
  const response = await fetch(`${init.base ?? relay.url}${path}`, init);
  const text = await response.text();
  seen.push({ label, headers: response.headers, text });
  let json: Record<string, unknown> = {};
  try {
    json = JSON.parse(text) as Record<string, unknown>;
  } catch {
    assert.fail(`${label}: body is not JSON: ${text.slice(0, 200)}`);
  }
  return { status: response.status, headers: response.headers, text, json };
}

async function mockStats(): Promise<MockStats> {
  return (await (await fetch(`${mock.url}/_mock/stats`)).json()) as MockStats;
}

const bearer = (key: string) => ({ authorization: `Bearer ${key}`, "content-type": "application/json" });
const chatBody = (model: string, extra: Record<string, unknown> = {}) => JSON.stringify({ model, messages: [{ role: "user", content: "hi" }], max_tokens: 4, ...extra });

const OPENAI_TYPES: Record<number, string> = { 400: "invalid_request_error", 401: "authentication_error", 403: "permission_error", 404: "not_found_error", 405: "invalid_request_error", 413: "invalid_request_error", 502: "api_error", 504: "api_error" };
const ANTHROPIC_TYPES: Record<number, string> = { 400: "invalid_request_error", 401: "authentication_error", 403: "permission_error", 404: "not_found_error", 405: "invalid_request_error", 413: "request_too_large", 502: "api_error", 504: "timeout_error" };

/** Asserts Renio's own error: status, the route's envelope, the code, a request id, no stack. */
function assertRenioError(reply: Reply, wire: "openai" | "anthropic", status: number, code: string): void {
  assert.equal(reply.status, status, reply.text);
  assert.match(reply.headers.get("content-type") ?? "", /^application\/json/);
  const requestId = reply.headers.get("x-request-id");
  assert.ok(requestId, "x-request-id on every error");
  if (wire === "openai") {
    assert.deepEqual(Object.keys(reply.json), ["error"]);
    const error = reply.json["error"] as Record<string, unknown>;
    assert.deepEqual(Object.keys(error).sort(), ["code", "message", "param", "type"]);
    assert.equal(error["type"], OPENAI_TYPES[status]);
    assert.equal(error["code"], code);
    assert.equal(typeof error["message"], "string");
    assert.ok((error["message"] as string).length > 0);
  } else {
    assert.equal(reply.json["type"], "error");
    assert.equal(reply.json["request_id"], requestId);
    const error = reply.json["error"] as Record<string, unknown>;
    assert.equal(error["type"], ANTHROPIC_TYPES[status]);
    assert.equal(error["code"], code);
    assert.equal(typeof error["message"], "string");
    assert.ok((error["message"] as string).length > 0);
  }
  assertNoStack(reply.text);
}

function assertNoStack(text: string): void {
  assert.doesNotMatch(text, /\n\s+at |\bat [\w.<>]+ \(|\.ts:\d+|\.js:\d+|file:\/\/|node_modules/, `stack trace in ${text}`);
}

const ROUTES: ReadonlyArray<{ path: string; wire: "openai" | "anthropic"; body: (model: string) => string }> = [
  { path: "/v1/chat/completions", wire: "openai", body: (model) => chatBody(model) },
  { path: "/v1/completions", wire: "openai", body: (model) => JSON.stringify({ model, prompt: "hi", max_tokens: 4 }) },
  { path: "/v1/embeddings", wire: "openai", body: (model) => JSON.stringify({ model, input: "hi" }) },
  { path: "/v1/responses", wire: "openai", body: (model) => JSON.stringify({ model, input: "hi", max_output_tokens: 4 }) },
  { path: "/v1/messages", wire: "anthropic", body: (model) => chatBody(model) },
  { path: "/v1/messages/count_tokens", wire: "anthropic", body: (model) => JSON.stringify({ model, messages: [{ role: "user", content: "hi" }] }) },
];

describe("Renio's own errors, on every route, in the route's envelope", () => {
  for (const route of ROUTES) {
    const gpt = route.wire === "openai" ? "mock-gpt" : "mock-claude";
    test(`${route.path}: 400 malformed JSON, 400 missing model`, async () => {
      const malformed = await send("malformed", route.path, { method: "POST", headers: bearer(TEST_KEY), body: '{"model": "mock-gpt", ' });
      assertRenioError(malformed, route.wire, 400, "invalid_json");
      const missing = await send("missing model", route.path, { method: "POST", headers: bearer(TEST_KEY), body: '{"messages":[]}' });
      assertRenioError(missing, route.wire, 400, "missing_model");
    });

    test(`${route.path}: 401 missing key, unknown Bearer key, unknown x-api-key`, async () => {
      const body = route.body(gpt);
      assertRenioError(await send("no key", route.path, { method: "POST", headers: { "content-type": "application/json" }, body }), route.wire, 401, "missing_api_key");
      assertRenioError(await send("bad bearer", route.path, { method: "POST", headers: bearer("sk-renio-unknown-000"), body }), route.wire, 401, "invalid_api_key");
      assertRenioError(
        await send("bad x-api-key", route.path, { method: "POST", headers: { "x-api-key": "sk-renio-unknown-000", "content-type": "application/json" }, body }),
        route.wire,
        401,
        "invalid_api_key",
      );
    });

    test(`${route.path}: 403 model not allowed for the key, 404 unknown model`, async () => {
      const denied = await send("not allowed", route.path, { method: "POST", headers: bearer(LIMITED_KEY), body: route.body("mock-claude") });
      assertRenioError(denied, route.wire, 403, "model_not_allowed");
      const unknown = await send("unknown model", route.path, { method: "POST", headers: bearer(TEST_KEY), body: route.body("no-such-model") });
      assertRenioError(unknown, route.wire, 404, "model_not_found");
    });

    test(`${route.path}: 405 on GET, with Allow: POST`, async () => {
      const reply = await send("405", route.path, { headers: bearer(TEST_KEY) });
      assertRenioError(reply, route.wire, 405, "method_not_allowed");
      assert.equal(reply.headers.get("allow"), "POST");
    });

    test(`${route.path}: 413 over server.maxBodyBytes (declared length and chunked)`, async () => {
      const big = JSON.stringify({ model: gpt, input: "x".repeat(MAX_BODY) });
      assertRenioError(await send("413", route.path, { method: "POST", headers: bearer(TEST_KEY), body: big }), route.wire, 413, "request_too_large");
      const bytes = new TextEncoder().encode(big);
      const chunked = new ReadableStream<Uint8Array>({
        start(controller) {
          for (let i = 0; i < bytes.length; i += 1024) controller.enqueue(bytes.subarray(i, i + 1024));
          controller.close();
        },
      });
      const init = { method: "POST", headers: bearer(TEST_KEY), body: chunked, duplex: "half" } as RequestInit;
      assertRenioError(await send("413 chunked", route.path, init), route.wire, 413, "request_too_large");
    });

    const dead = route.wire === "openai" ? "dead-gpt" : "dead-claude";
    const keyed = route.wire === "openai" ? "keyed-gpt" : "keyed-claude";
    test(`${route.path}: 502 upstream unreachable, 502 upstream reset, 504 first-byte timeout`, async () => {
      const unreachable = await send("unreachable", route.path, { method: "POST", headers: bearer(TEST_KEY), body: route.body(dead) });
      assertRenioError(unreachable, route.wire, 502, "upstream_unreachable");
      const reset = await send("reset", route.path, { method: "POST", headers: { ...bearer(TEST_KEY), "x-mock-fault": "reset" }, body: route.body(keyed) });
      assertRenioError(reset, route.wire, 502, "upstream_reset");
      const abortedBefore = (await mockStats()).aborted;
      const started = performance.now();
      const slow = await send("timeout", route.path, { method: "POST", headers: { ...bearer(TEST_KEY), "x-mock-fault": "delay=3000" }, body: route.body(keyed) });
      assertRenioError(slow, route.wire, 504, "upstream_timeout");
      assert.ok(performance.now() - started < 2500, "the timeout fired well before the mock's delay");
      assert.ok(await eventually(async () => (await mockStats()).aborted === abortedBefore + 1), "the timed-out upstream call was aborted");
    });

    test(`${route.path}: provider errors pass through unchanged`, async () => {
      for (const status of [429, 500, 529]) {
        const fault = { "x-mock-fault": `status=${status}` };
        const relayed = await send(`passthrough ${status}`, route.path, { method: "POST", headers: { ...bearer(TEST_KEY), ...fault }, body: route.body(keyed) });
        const direct = await send(`direct ${status}`, route.path, { method: "POST", base: mock.url, headers: { "content-type": "application/json", ...fault }, body: route.body(keyed) });
        assert.equal(relayed.status, status);
        assert.equal(relayed.text, direct.text);
        assert.equal(relayed.headers.get("content-type"), direct.headers.get("content-type"));
      }
    });
  }

  test("404 unknown route: OpenAI envelope, Anthropic envelope under /v1/messages or with anthropic-version", async () => {
    assertRenioError(await send("no route", "/v1/nope", { method: "POST", headers: bearer(TEST_KEY), body: "{}" }), "openai", 404, "route_not_found");
    assertRenioError(await send("no route GET", "/nope", {}), "openai", 404, "route_not_found");
    assertRenioError(await send("no route messages", "/v1/messages/nope", { method: "POST", headers: bearer(TEST_KEY), body: "{}" }), "anthropic", 404, "route_not_found");
    assertRenioError(await send("no route anthropic", "/v1/nope", { method: "POST", headers: { "anthropic-version": "2023-06-01" }, body: "{}" }), "anthropic", 404, "route_not_found");
  });

  test("GET /v1/models: 401 without a key, in the envelope the caller speaks; a limited key sees its models only", async () => {
    assertRenioError(await send("models no key", "/v1/models", {}), "openai", 401, "missing_api_key");
    assertRenioError(await send("models no key anthropic", "/v1/models", { headers: { "anthropic-version": "2023-06-01" } }), "anthropic", 401, "missing_api_key");
    const limited = await send("models limited", "/v1/models", { headers: bearer(LIMITED_KEY) });
    assert.equal(limited.status, 200);
    assert.deepEqual((limited.json["data"] as { id: string }[]).map((m) => m.id), ["mock-gpt"]);
  });
});

describe("errors as the official SDKs see them", () => {
  test("openai: APIError with status and code", async () => {
    const client = new OpenAI({ apiKey: "sk-renio-unknown-000", baseURL: `${relay.url}/v1`, maxRetries: 0 });
    await assert.rejects(client.chat.completions.create({ model: "mock-gpt", messages: [] }), (error: unknown) => {
      assert.ok(error instanceof OpenAI.AuthenticationError);
      assert.equal(error.status, 401);
      assert.equal(error.code, "invalid_api_key");
      return true;
    });
    const limited = new OpenAI({ apiKey: LIMITED_KEY, baseURL: `${relay.url}/v1`, maxRetries: 0 });
    await assert.rejects(limited.chat.completions.create({ model: "mock-claude", messages: [] }), OpenAI.PermissionDeniedError);
    await assert.rejects(
      limited.chat.completions.create({ model: "mock-gpt", messages: [] }, { headers: { "x-mock-fault": "status=429" } }),
      OpenAI.RateLimitError,
    );
  });

  test("anthropic: APIError with status and error type", async () => {
    const client = new Anthropic({ apiKey: TEST_KEY, baseURL: relay.url, maxRetries: 0 });
    await assert.rejects(client.messages.create({ model: "no-such-model", max_tokens: 1, messages: [] }), (error: unknown) => {
      assert.ok(error instanceof Anthropic.NotFoundError);
      assert.equal(error.status, 404);
      assert.equal((error.error as { error?: { type?: string } }).error?.type, "not_found_error");
      return true;
    });
    await assert.rejects(client.messages.create({ model: "dead-claude", max_tokens: 1, messages: [] }), (error: unknown) => error instanceof Anthropic.APIError && error.status === 502);
  });
});

describe("request ids", () => {
  test("a caller's x-request-id is returned, on success and on error", async () => {
    const ok = await send("rid ok", "/v1/chat/completions", { method: "POST", headers: { ...bearer(TEST_KEY), "x-request-id": "caller-req-42" }, body: chatBody("mock-gpt") });
    assert.equal(ok.status, 200);
    assert.equal(ok.headers.get("x-request-id"), "caller-req-42");
    const denied = await send("rid err", "/v1/messages", { method: "POST", headers: { "x-request-id": "caller-req-43" }, body: chatBody("mock-claude") });
    assert.equal(denied.status, 401);
    assert.equal(denied.headers.get("x-request-id"), "caller-req-43");
    assert.equal(denied.json["request_id"], "caller-req-43");
  });

  test("without one, Renio generates an id, returns it, and sends it upstream", async () => {
    const first = await send("rid gen 1", "/v1/chat/completions", { method: "POST", headers: bearer(TEST_KEY), body: chatBody("mock-gpt") });
    const second = await send("rid gen 2", "/v1/chat/completions", { method: "POST", headers: bearer(TEST_KEY), body: chatBody("mock-gpt") });
    const ids = [first.headers.get("x-request-id"), second.headers.get("x-request-id")];
    assert.ok(ids[0] && ids[1] && ids[0] !== ids[1], `generated ids ${ids.join(", ")}`);
    assert.deepEqual((await mockStats()).requestIds.slice(-2), ids);
  });

  test("an unusable x-request-id is replaced by a generated one", async () => {
    const reply = await send("rid junk", "/healthz", { headers: { "x-request-id": "has spaces and\ttabs" } });
    const id = reply.headers.get("x-request-id");
    assert.ok(id && id !== "has spaces and\ttabs");
  });
});

describe("secrets", () => {
  test("calls through a keyed provider succeed, and the key went upstream, not back", async () => {
    const reply = await send("keyed ok", "/v1/chat/completions", { method: "POST", headers: bearer(TEST_KEY), body: chatBody("keyed-gpt") });
    assert.equal(reply.status, 200);
    assert.equal(reply.json["model"], "upstream-gpt");
    const anthropic = await send("keyed ok anthropic", "/v1/messages", { method: "POST", headers: bearer(TEST_KEY), body: chatBody("keyed-claude") });
    assert.equal(anthropic.status, 200);
  });

  test("no response body or header ever contains the provider key or a stack trace", () => {
    assert.ok(seen.length > 100, `${seen.length} responses checked`);
    for (const reply of seen) {
      assert.ok(!reply.text.includes(PROVIDER_SECRET), `${reply.label}: provider key in the body`);
      reply.headers.forEach((value, name) => assert.ok(!value.includes(PROVIDER_SECRET), `${reply.label}: provider key in header ${name}`));
      assertNoStack(reply.text);
    }
  });
});
