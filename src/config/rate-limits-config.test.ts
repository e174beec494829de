import assert from "node:assert/strict";
import { test } from "node:test";
import { ConfigError, formatProblem } from "./config-error.ts";
import { validateConfig } from "./config-load.ts";

const BASE = {
  providers: { mock: { type: "mock" } },
  models: { "mock-gpt": { provider: "mock" } },
  keys: [{ id: "app-1", secret: "sk-renio-0123456789", project: "support" }],
};

function problems(rateLimits: unknown): string[] {
  try {
    validateConfig({ ...BASE, rateLimits }, {});
  } catch (error) {
    assert.ok(error instanceof ConfigError);
    return error.problems.map(formatProblem);
  }
  assert.fail("the config was accepted");
}

test("rate limits by key, project and model are accepted", () => {
  const config = validateConfig({
    ...BASE,
    rateLimits: [
      { scope: { key: "app-1" }, requestsPerMinute: 60, concurrent: 4 },
      { scope: { project: "support" }, tokensPerMinute: 100_000 },
      { scope: { model: "mock-gpt" }, requestsPerMinute: 600 },
    ],
  }, {});
  assert.equal(config.rateLimits.limits.length, 3);
  assert.equal(config.rateLimits.store, "memory", "the list form keeps limits in memory");
  assert.deepEqual(validateConfig(BASE, {}).rateLimits.limits, [], "none by default");
});

test("rate limits naming nothing configured, repeating a scope, or setting no limit are config errors", () => {
  assert.deepEqual(problems([{ scope: { key: "nobody" }, requestsPerMinute: 1 }]), ['rateLimits[0].scope.key: unknown key "nobody"']);
  assert.deepEqual(problems([{ scope: { project: "nobody" }, requestsPerMinute: 1 }]), ['rateLimits[0].scope.project: no key belongs to project "nobody"']);
  assert.deepEqual(problems([{ scope: { model: "gpt-9" }, concurrent: 1 }]), ['rateLimits[0].scope.model: unknown model "gpt-9"']);
  assert.deepEqual(problems([{ scope: { key: "app-1" }, requestsPerMinute: 1 }, { scope: { key: "app-1" }, concurrent: 1 }]), [
    "rateLimits[1].scope: duplicate rate limit for key app-1 (put its limits in one entry)",
  ]);
  assert.deepEqual(problems([{ scope: { key: "app-1" } }]), ["rateLimits[0]: set at least one of requestsPerMinute, tokensPerMinute, concurrent"]);
  assert.equal(problems([{ scope: { key: "app-1" }, requestsPerMinute: 0.5 }]).length, 1, "limits are whole positive numbers");
});

test("Redis stores need a redis section; the response cache serves on every event loop", () => {
  const refused = (extra: Record<string, unknown>): string[] => {
    try {
      validateConfig({ ...BASE, ...extra }, {});
    } catch (error) {
      assert.ok(error instanceof ConfigError);
      return error.problems.map(formatProblem);
    }
    assert.fail("the config was accepted");
  };
  assert.deepEqual(refused({ rateLimits: { store: "redis", limits: [] } }), ["rateLimits.store: store: redis needs a `redis` section with the server's url"]);
  assert.equal(validateConfig({ ...BASE, cache: { models: ["mock-gpt"] }, server: { eventLoops: 2 } }, {}).server.eventLoops, 2, "every event loop serves the cache");
});
