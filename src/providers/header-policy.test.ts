import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { clientResponseHeaders, upstreamQuery, upstreamRequestHeaders, type HeaderPath } from "./header-policy.ts";

/** What Claude Code 2.1 sends on /v1/messages (its own headers, its SDK's, Renio's key, the transport's). */
const CLAUDE_CODE = new Headers({
  accept: "application/json",
  "content-type": "application/json",
  "user-agent": "claude-cli/2.1.332 (external, sdk-cli)",
  "x-claude-code-session-id": "4ec55479",
  "x-stainless-lang": "js",
  "x-stainless-retry-count": "0",
  "anthropic-beta": "claude-code-20250219,context-management-2025-06-27",
  "anthropic-dangerous-direct-browser-access": "true",
  "anthropic-version": "2023-06-01",
  "x-api-key": "rn-renio-key",
  "x-app": "cli",
  connection: "keep-alive",
  host: "127.0.0.1:8080",
  "accept-encoding": "gzip, deflate, br, zstd",
  "content-length": "87436",
});

const names = (headers: Headers): string[] => [...headers.keys()].sort();

describe("header and query policy", () => {
  test("pass-through to Anthropic: everything the client addressed to it, never Renio's key or the transport's", () => {
    assert.deepEqual(names(upstreamRequestHeaders(CLAUDE_CODE, "anthropic")), [
      "accept", "anthropic-beta", "anthropic-dangerous-direct-browser-access", "anthropic-version", "user-agent", "x-app", "x-claude-code-session-id", "x-stainless-lang", "x-stainless-retry-count",
    ]);
  });

  test("translated: only the idempotency key; the other provider's namespace never on a pass-through either", () => {
    const client = new Headers(CLAUDE_CODE);
    client.set("Idempotency-Key", "k1");
    assert.deepEqual(names(upstreamRequestHeaders(client, "translated")), ["idempotency-key"]);
    assert.deepEqual(names(upstreamRequestHeaders(new Headers({ "anthropic-beta": "x", "openai-beta": "y", "openai-organization": "org" }), "openai")), ["openai-beta"]);
    assert.deepEqual(names(upstreamRequestHeaders(new Headers({ "anthropic-beta": "x", "openai-beta": "y", "x-goog-user-project": "p", "x-amz-date": "d" }), "anthropic")), ["anthropic-beta"]);
    for (const path of ["openai", "anthropic", "translated"] as const satisfies readonly HeaderPath[]) {
      const out = upstreamRequestHeaders(new Headers({ authorization: "Bearer rn-key", cookie: "a=b", "x-forwarded-for": "10.0.0.1", "x-renio-timeout-ms": "9", traceparent: "00-1-2-01", "x-request-id": "mine" }), path);
      assert.deepEqual(names(out), [], path);
    }
  });

  test("query: the caller's parameters as written, never credentials or Azure's api-version, none when translated", () => {
    assert.equal(upstreamQuery("http://h/v1/messages?beta=true", "anthropic"), "?beta=true");
    assert.equal(upstreamQuery("http://h/v1/messages?beta=true", "translated"), "");
    assert.equal(upstreamQuery("http://h/v1/chat/completions?a=1&Key=s&api-version=2024&x=%20y&&#frag", "openai"), "?a=1&x=%20y");
    assert.equal(upstreamQuery("http://h/v1/chat/completions", "openai"), "");
    assert.equal(upstreamQuery("http://h/v1/chat/completions?", "openai"), "");
    assert.equal(upstreamQuery("http://h/v1/chat/completions?api_key=s&access_token=t", "openai"), "");
  });

  test("response: the provider's own on a pass-through, only retry advice when translated; its request id as x-upstream-request-id", () => {
    const openai = new Headers({ "content-type": "application/json", "openai-processing-ms": "5", "x-ratelimit-remaining-tokens": "9", "openai-organization": "org", "x-request-id": "req_1", "retry-after": "2", "set-cookie": "a=b", "content-length": "10" });
    assert.deepEqual(names(clientResponseHeaders(openai, "openai")), ["content-type", "openai-processing-ms", "retry-after", "x-ratelimit-remaining-tokens", "x-upstream-request-id"]);
    assert.deepEqual(names(clientResponseHeaders(openai, "translated")), ["content-type", "retry-after", "x-upstream-request-id"]);
    assert.equal(clientResponseHeaders(new Headers({ "request-id": "req_a" }), "anthropic").get("x-upstream-request-id"), "req_a");
  });
});
