import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { backoffDelayMs, retryableFailure, retryableStatus, retryAfterMs, saysPromptTooLong } from "./retry-policy.ts";

const RETRY = { maxAttempts: 5, backoffMs: 100, maxBackoffMs: 1000, maxRetryAfterMs: 5000, billedRetries: 0 };

describe("what is retried", () => {
  test("statuses that may change on another try, and none of those that will not", () => {
    assert.deepEqual([408, 409, 429, 500, 502, 503, 504, 529].filter(retryableStatus), [408, 409, 429, 500, 502, 503, 504, 529]);
    assert.deepEqual([200, 400, 401, 403, 404, 413, 422, 501].filter(retryableStatus), []);
    assert.deepEqual(["upstream_unreachable", "upstream_reset", "upstream_timeout", "client_aborted", "internal_error"].filter(retryableFailure), ["upstream_unreachable", "upstream_reset", "upstream_timeout"]);
  });

  test("retry-after-ms wins over retry-after; seconds and HTTP dates are read; nonsense is none", () => {
    const now = Date.UTC(2026, 11, 4, 12, 0, 0);
    assert.equal(retryAfterMs(new Headers({ "retry-after-ms": "250", "retry-after": "9" }), now), 250);
    assert.equal(retryAfterMs(new Headers({ "retry-after": "2" }), now), 2000);
    assert.equal(retryAfterMs(new Headers({ "retry-after": new Date(now + 3000).toUTCString() }), now), 3000);
    assert.equal(retryAfterMs(new Headers({ "retry-after": "soon" }), now), undefined);
    assert.equal(retryAfterMs(new Headers(), now), undefined);
  });

  test("backoff doubles per retry up to its bound, with jitter between half and all of it", () => {
    assert.equal(backoffDelayMs(RETRY, 1, () => 0), 50);
    assert.equal(backoffDelayMs(RETRY, 3, () => 0), 200);
    assert.ok(backoffDelayMs(RETRY, 3, () => 0.999) < 400);
    assert.equal(backoffDelayMs(RETRY, 10, () => 0), 500);
  });

  test("the context-window answers of OpenAI and Anthropic are recognised, other 400s are not", () => {
    const bytes = (text: string) => new TextEncoder().encode(text);
    assert.equal(saysPromptTooLong(400, bytes('{"error":{"message":"This model\'s maximum context length is 128000 tokens.","code":"context_length_exceeded"}}')), true);
    assert.equal(saysPromptTooLong(400, bytes('{"type":"error","error":{"type":"invalid_request_error","message":"prompt is too long: 210000 tokens > 200000 maximum"}}')), true);
    assert.equal(saysPromptTooLong(400, bytes('{"error":{"message":"Invalid value for temperature","code":"invalid_value"}}')), false);
    assert.equal(saysPromptTooLong(500, bytes("context_length_exceeded")), false);
  });
});
