import Anthropic from "@anthropic-ai/sdk";
import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import OpenAI from "openai";
import { anthropicAnswer } from "../../support/anthropic-upstream.ts";
import { openAiAnswer } from "../../support/openai-upstream.ts";
import { TEST_KEY } from "../../support/relay-harness.ts";
import { startAnsweringUpstream, type ReceivedRequest, type ScriptedAnswer, type ScriptedUpstream } from "../../support/scripted-upstream.ts";
import { openRelay, type RelayWithStore } from "../../support/with-relay.ts";

/**
 * The header and query policy (docs/headers.md) through the relay, with the official SDKs:
 * what reaches each provider on a pass-through and a translated call, and what comes back.
 */

/** Response headers each scripted provider sends, as the real APIs do. */
const OPENAI_HEADERS = { "openai-processing-ms": "12", "openai-version": "2020-10-01", "openai-organization": "org-renio", "x-ratelimit-remaining-requests": "99", "x-request-id": "req_openai_1", "retry-after-ms": "10", "set-cookie": "__cf_bm=1" };
const ANTHROPIC_HEADERS = { "anthropic-ratelimit-requests-remaining": "49", "anthropic-organization-id": "org-renio", "request-id": "req_anthropic_1", "x-should-retry": "false" };

const answer = (request: ReceivedRequest): ScriptedAnswer =>
  request.path === "/v1/messages" ? { ...anthropicAnswer(request), headers: ANTHROPIC_HEADERS } : { ...openAiAnswer(request), headers: OPENAI_HEADERS };

let upstream: ScriptedUpstream;
let opened: RelayWithStore;

before(async () => {
  upstream = await startAnsweringUpstream(answer);
  opened = await openRelay(upstream.url, {
    providers: {
      oai: { type: "openai", baseUrl: `${upstream.url}/v1`, apiKey: "sk-openai-upstream" },
      ant: { type: "anthropic", baseUrl: upstream.url, apiKey: "sk-ant-upstream" },
    },
    models: { "gpt-4o": { provider: "oai", translate: true }, "claude-sonnet-4-5": { provider: "ant", translate: true } },
  });
});
after(async () => {
  await opened.stop();
  await upstream.stop();
});

const anthropic = () => new Anthropic({ apiKey: TEST_KEY, baseURL: opened.relay.url, maxRetries: 0, timeout: 5_000 });
const openai = () => new OpenAI({ apiKey: TEST_KEY, baseURL: `${opened.relay.url}/v1`, maxRetries: 0, timeout: 5_000 });
const CLIENT_HEADERS = { "anthropic-beta": "context-management-2025-06-27", "x-app": "cli", "x-claude-code-session-id": "s-1", "idempotency-key": "idem-1", cookie: "a=b", "x-forwarded-for": "10.0.0.9", "x-renio-timeout-ms": "30000" };
const params = { max_tokens: 16, messages: [{ role: "user" as const, content: "hi" }] };

/** The last request the scripted upstream received. */
function lastReceived(): { path: string; query: string; headers: Headers } {
  return { path: upstream.paths.at(-1)!, query: upstream.queries.at(-1)!, headers: upstream.headers.at(-1)! };
}

describe("header and query policy", () => {
  test("Anthropic caller to an Anthropic provider: `?beta=true`, the anthropic-* headers, the SDK's and the client's own go; Renio's key, cookies, the client's address, Renio's own headers do not", async () => {
    const { response } = await anthropic().beta.messages.create({ model: "claude-sonnet-4-5", ...params }, { headers: CLIENT_HEADERS, query: { beta: "true" } }).withResponse();
    const seen = lastReceived();
    assert.deepEqual([seen.path, seen.query], ["/v1/messages", "?beta=true"]);
    for (const name of ["anthropic-beta", "anthropic-version", "x-app", "x-claude-code-session-id", "idempotency-key", "user-agent", "x-stainless-lang"]) assert.ok(seen.headers.has(name), name);
    assert.equal(seen.headers.get("anthropic-beta"), CLIENT_HEADERS["anthropic-beta"]);
    assert.equal(seen.headers.get("x-api-key"), "sk-ant-upstream");
    for (const name of ["authorization", "cookie", "x-forwarded-for", "x-renio-timeout-ms"]) assert.equal(seen.headers.get(name), null, name);
    seen.headers.forEach((value, name) => assert.ok(!value.includes(TEST_KEY), `Renio's key went upstream in ${name}`));
    // Back: the provider's own headers, its request id renamed; never its account or cookies.
    assert.equal(response.headers.get("anthropic-ratelimit-requests-remaining"), "49");
    assert.equal(response.headers.get("x-upstream-request-id"), "req_anthropic_1");
    assert.notEqual(response.headers.get("request-id"), "req_anthropic_1");
    assert.equal(response.headers.get("anthropic-organization-id"), null);
  });

  test("Anthropic caller translated to an OpenAI provider: no anthropic-* header, no `?beta`, nothing of the caller's SDK; only the idempotency key; none of OpenAI's own headers come back", async () => {
    const { response } = await anthropic().beta.messages.create({ model: "gpt-4o", ...params }, { headers: CLIENT_HEADERS, query: { beta: "true" } }).withResponse();
    const seen = lastReceived();
    assert.deepEqual([seen.path, seen.query], ["/v1/chat/completions", ""]);
    const names: string[] = [];
    seen.headers.forEach((_, name) => names.push(name));
    assert.deepEqual(names.filter((name) => name.startsWith("anthropic-") || name.startsWith("x-stainless-") || name.startsWith("x-app") || name.startsWith("x-claude")), []);
    assert.equal(seen.headers.get("idempotency-key"), "idem-1");
    assert.equal(seen.headers.get("authorization"), "Bearer sk-openai-upstream");
    assert.ok(!(seen.headers.get("user-agent") ?? "").includes("Anthropic"), "the caller's SDK is not named to OpenAI");
    for (const name of ["openai-processing-ms", "openai-version", "openai-organization", "x-ratelimit-remaining-requests", "set-cookie"]) assert.equal(response.headers.get(name), null, name);
    assert.equal(response.headers.get("retry-after-ms"), "10", "retry advice every SDK reads");
    assert.equal(response.headers.get("x-upstream-request-id"), "req_openai_1");
    assert.match(response.headers.get("content-type") ?? "", /application\/json/);
  });

  test("OpenAI caller to an OpenAI provider: openai-beta goes, openai-organization does not; OpenAI's headers come back, its account does not", async () => {
    const { response } = await openai()
      .chat.completions.create({ model: "gpt-4o", ...params }, { headers: { "openai-beta": "assistants=v2", "openai-organization": "org-of-the-caller", "anthropic-beta": "x" } })
      .withResponse();
    const seen = lastReceived();
    assert.equal(seen.headers.get("openai-beta"), "assistants=v2");
    for (const name of ["openai-organization", "anthropic-beta"]) assert.equal(seen.headers.get(name), null, name);
    assert.equal(response.headers.get("openai-processing-ms"), "12");
    assert.equal(response.headers.get("x-ratelimit-remaining-requests"), "99");
    assert.equal(response.headers.get("openai-organization"), null);
  });

  test("OpenAI caller translated to an Anthropic provider: no openai-* header, the provider's configured anthropic-version; none of Anthropic's headers come back", async () => {
    const { response } = await openai()
      .chat.completions.create({ model: "claude-sonnet-4-5", ...params }, { headers: { "openai-beta": "assistants=v2", "anthropic-beta": "caller-set" }, query: { "api-version": "2024-10-21", trace: "1" } })
      .withResponse();
    const seen = lastReceived();
    assert.deepEqual([seen.path, seen.query], ["/v1/messages", ""]);
    for (const name of ["openai-beta", "anthropic-beta", "x-stainless-lang"]) assert.equal(seen.headers.get(name), null, name);
    assert.equal(seen.headers.get("anthropic-version"), "2023-06-01");
    assert.equal(response.headers.get("anthropic-ratelimit-requests-remaining"), null);
    assert.equal(response.headers.get("x-should-retry"), "false");
  });

  test("the query string on a pass-through call: the caller's parameters go, credentials and Azure's api-version do not", async () => {
    await openai().chat.completions.create({ model: "gpt-4o", ...params }, { query: { "api-version": "2024-10-21", key: "AIza-secret", trace: "on", beta: "true" } });
    assert.equal(lastReceived().query, "?trace=on&beta=true");
  });
});
