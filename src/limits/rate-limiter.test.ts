import assert from "node:assert/strict";
import { describe, test } from "node:test";
import type { RateLimitConfig } from "../config/config-schema.ts";
import { RelayError } from "../shared/relay-error.ts";
import { duration, rfc3339 } from "./rate-limit-headers.ts";
import { createRateLimiter, type RateCall, type RateLimiter } from "./rate-limiter.ts";
import { RateStateBook } from "./rate-state.ts";

/** A clock that moves only when the test says. */
function manualClock(start = Date.UTC(2026, 11, 3, 12, 0, 0)) {
  let now = start;
  return { now: () => now, advance: (ms: number) => void (now += ms) };
}

const CALL: RateCall = { keyId: "app-1", project: "support", model: "gpt-4o", tokens: 400, wire: "openai" };

function refusal(limiter: RateLimiter, call: RateCall = CALL): RelayError {
  try {
    limiter.admit(call);
  } catch (error) {
    assert.ok(error instanceof RelayError);
    assert.equal(error.status, 429);
    assert.equal(error.code, "rate_limit_exceeded");
    return error;
  }
  assert.fail("the call was admitted");
}

function limiterWith(limits: RateLimitConfig[]) {
  const clock = manualClock();
  return { clock, limiter: createRateLimiter(limits, clock.now) };
}

describe("requests per minute", () => {
  test("a full minute's allowance at once, then one request per 60 s / limit", () => {
    const { clock, limiter } = limiterWith([{ scope: { key: "app-1" }, requestsPerMinute: 3 }]);
    const remaining = [0, 1, 2].map(() => limiter.admit(CALL).headers["x-ratelimit-remaining-requests"]);
    assert.deepEqual(remaining, ["2", "1", "0"]);
    const error = refusal(limiter);
    assert.equal(error.message, "Rate limit reached for key app-1: 3 requests per minute; retry in 20 s");
    assert.equal(error.headers?.["retry-after"], "20");
    assert.equal(error.headers?.["retry-after-ms"], "20000");
    assert.equal(error.headers?.["x-ratelimit-limit-requests"], "3");
    assert.equal(error.headers?.["x-ratelimit-remaining-requests"], "0");
    assert.equal(error.headers?.["x-ratelimit-reset-requests"], "1m0s");
    clock.advance(19_999);
    refusal(limiter);
    clock.advance(1);
    assert.equal(limiter.admit(CALL).headers["x-ratelimit-remaining-requests"], "0");
    refusal(limiter);
  });

  test("a cancelled call (not sent) gives its request back; an ended one does not", () => {
    const { limiter } = limiterWith([{ scope: { key: "app-1" }, requestsPerMinute: 1 }]);
    limiter.admit(CALL).cancel();
    limiter.admit(CALL).end(null, false);
    refusal(limiter);
  });

  test("exact at a limit that does not divide a minute evenly", () => {
    const { clock, limiter } = limiterWith([{ scope: { model: "gpt-4o" }, requestsPerMinute: 7 }]);
    for (let i = 0; i < 7; i++) limiter.admit(CALL);
    refusal(limiter);
    clock.advance(60_000);
    for (let i = 0; i < 7; i++) limiter.admit(CALL);
    refusal(limiter);
  });
});

describe("tokens per minute", () => {
  test("reserves the call's bound, refuses what does not fit, settles from usage", () => {
    const { limiter } = limiterWith([{ scope: { project: "support" }, tokensPerMinute: 1000 }]);
    const first = limiter.admit(CALL);
    assert.equal(first.headers["x-ratelimit-remaining-tokens"], "600");
    limiter.admit(CALL);
    const error = refusal(limiter);
    assert.equal(error.message, "Rate limit reached for project support: 1000 tokens per minute; retry in 12 s");
    assert.equal(error.headers?.["x-ratelimit-remaining-tokens"], "200");
    assert.equal(error.headers?.["retry-after-ms"], "12000");
    // 100 of the 400 reserved were used: 300 come back, so the third call fits.
    first.end({ inputTokens: 60, cachedInputTokens: 10, outputTokens: 30 }, true);
    assert.equal(limiter.admit(CALL).headers["x-ratelimit-remaining-tokens"], "100");
  });

  test("no final usage: the reservation stays when the provider may have billed, else it comes back", () => {
    const { limiter } = limiterWith([{ scope: { key: "app-1" }, tokensPerMinute: 800 }]);
    limiter.admit(CALL).end(null, true);
    limiter.admit(CALL).end(null, false);
    assert.equal(limiter.admit(CALL).headers["x-ratelimit-remaining-tokens"], "0");
  });

  test("a call whose bound exceeds the limit is refused for good, without a retry time", () => {
    const { limiter } = limiterWith([{ scope: { key: "app-1" }, tokensPerMinute: 300 }]);
    const error = refusal(limiter);
    assert.match(error.message, /up to 400 tokens .* more than key app-1 allows: 300 tokens per minute/);
    assert.equal(error.headers?.["x-should-retry"], "false");
    assert.equal(error.headers?.["retry-after"], undefined);
  });
});

describe("concurrent calls", () => {
  test("refuses past the limit until a call ends; suggests a 1 s retry", () => {
    const { limiter } = limiterWith([{ scope: { key: "app-1" }, concurrent: 2 }]);
    const first = limiter.admit(CALL);
    limiter.admit(CALL);
    const error = refusal(limiter);
    assert.equal(error.message, "Rate limit reached for key app-1: 2 concurrent calls; retry in 1 s");
    assert.equal(error.headers?.["retry-after-ms"], "1000");
    first.end(null, true);
    first.end(null, true);
    limiter.admit(CALL);
    refusal(limiter);
  });
});

describe("across a config reload (one state book, a new limiter)", () => {
  /** The limiter before the reload, and how to build the one after it on the same state. */
  function reloadable(limits: RateLimitConfig[]) {
    const clock = manualClock();
    const state = new RateStateBook();
    return { clock, limiter: createRateLimiter(limits, clock.now, state), reload: (next: RateLimitConfig[]) => createRateLimiter(next, clock.now, state) };
  }

  test("an unchanged limit keeps its bucket: an exhausted key stays limited, and refills on its old schedule", () => {
    const { clock, limiter, reload } = reloadable([{ scope: { key: "app-1" }, requestsPerMinute: 2 }]);
    limiter.admit(CALL);
    limiter.admit(CALL);
    refusal(limiter);
    clock.advance(15_000);
    const after = reload([{ scope: { key: "app-1" }, requestsPerMinute: 2 }, { scope: { key: "other" }, requestsPerMinute: 5 }]);
    assert.equal(refusal(after).message, "Rate limit reached for key app-1: 2 requests per minute; retry in 15 s");
    clock.advance(15_000);
    assert.equal(after.admit(CALL).headers["x-ratelimit-remaining-requests"], "0");
    refusal(after);
  });

  test("a raised limit frees the difference at once; a lowered one keeps what was used, capped at the new limit", () => {
    const { clock, limiter, reload } = reloadable([{ scope: { project: "support" }, tokensPerMinute: 1000 }]);
    limiter.admit(CALL);
    limiter.admit(CALL);
    const raised = reload([{ scope: { project: "support" }, tokensPerMinute: 1200 }]);
    assert.equal(raised.admit(CALL).headers["x-ratelimit-remaining-tokens"], "0", "800 used of 1200: one more 400-token call fits");
    refusal(raised);
    const lowered = reload([{ scope: { project: "support" }, tokensPerMinute: 500 }]);
    const error = refusal(lowered);
    assert.equal(error.headers?.["x-ratelimit-remaining-tokens"], "0");
    // Capped at 500 used, refilled at 500 per minute: 400 tokens fit after 48 s, not after the 1200 used drained.
    assert.equal(error.headers?.["retry-after-ms"], "48000");
    clock.advance(48_000);
    lowered.admit(CALL);
  });

  test("calls in flight keep counting against the scope's concurrency, and free their slot after the reload", () => {
    const { limiter, reload } = reloadable([{ scope: { key: "app-1" }, concurrent: 1 }]);
    const inFlight = limiter.admit(CALL);
    const after = reload([{ scope: { key: "app-1" }, concurrent: 1 }]);
    refusal(after);
    inFlight.end(null, true);
    after.admit(CALL);
  });

  test("a limit given back by a call admitted before the reload reaches the bucket in force", () => {
    const { limiter, reload } = reloadable([{ scope: { key: "app-1" }, requestsPerMinute: 1 }]);
    const notSent = limiter.admit(CALL);
    const after = reload([{ scope: { key: "app-1" }, requestsPerMinute: 1 }]);
    refusal(after);
    notSent.cancel();
    after.admit(CALL);
  });
});

describe("scopes and headers", () => {
  test("every limit that applies counts the call; others do not see it", () => {
    const { limiter } = limiterWith([
      { scope: { key: "app-1" }, requestsPerMinute: 10 },
      { scope: { project: "support" }, requestsPerMinute: 2 },
      { scope: { model: "claude" }, requestsPerMinute: 1 },
    ]);
    assert.equal(limiter.admit(CALL).headers["x-ratelimit-remaining-requests"], "1", "the tightest limit is reported");
    limiter.admit({ ...CALL, keyId: "app-2" });
    assert.match(refusal(limiter, { ...CALL, keyId: "app-3" }).message, /project support: 2 requests per minute/);
    assert.deepEqual(limiter.admit({ ...CALL, project: "other", keyId: "app-2" }).headers, {}, "no limit applies: no headers");
    limiter.admit({ ...CALL, project: "other", model: "claude" });
    assert.match(refusal(limiter, { ...CALL, project: "other", model: "claude" }).message, /model claude: 1 request per minute/);
  });

  test("the Anthropic routes get anthropic-ratelimit-* with RFC 3339 resets", () => {
    const { clock, limiter } = limiterWith([{ scope: { key: "app-1" }, requestsPerMinute: 2, tokensPerMinute: 1000 }]);
    const headers = limiter.admit({ ...CALL, wire: "anthropic" }).headers;
    assert.deepEqual(headers, {
      "anthropic-ratelimit-requests-limit": "2",
      "anthropic-ratelimit-requests-remaining": "1",
      "anthropic-ratelimit-requests-reset": rfc3339(clock.now() + 30_000),
      "anthropic-ratelimit-tokens-limit": "1000",
      "anthropic-ratelimit-tokens-remaining": "600",
      "anthropic-ratelimit-tokens-reset": rfc3339(clock.now() + 24_000),
    });
    assert.equal(headers["anthropic-ratelimit-requests-reset"], "2026-12-03T12:00:30Z");
  });

  test("durations are written as OpenAI writes them", () => {
    assert.deepEqual([0, 20, 999.2, 1000, 1500, 59_951, 60_000, 360_000, 3_723_000].map(duration), ["0s", "20ms", "1s", "1s", "1.5s", "59.951s", "1m0s", "6m0s", "1h2m3s"]);
  });
});
