import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { ConfigError, formatProblem } from "./config-error.ts";
import { validateConfig } from "./config-load.ts";
import { modelRouteOf } from "./model-routes.ts";

const PROVIDERS = {
  oa: { type: "openai", baseUrl: "https://api.openai.com/v1", apiKey: "sk-unused-0000" },
  an: { type: "anthropic", apiKey: "sk-ant-unused-0000" },
  mock: { type: "mock" },
};

function problems(models: Record<string, unknown>, extra: Record<string, unknown> = {}): string[] {
  try {
    validateConfig({ providers: PROVIDERS, models, ...extra }, {});
  } catch (error) {
    assert.ok(error instanceof ConfigError);
    return error.problems.map(formatProblem);
  }
  assert.fail("the config was accepted");
}

describe("routing config", () => {
  test("the object form: targets with weights and priorities, fallbacks, retries, deadline; defaults from `routing`", () => {
    const config = validateConfig({
      providers: PROVIDERS,
      routing: { retry: { backoffMs: 50 }, timeoutMs: 30_000 },
      models: {
        chat: { targets: [{ provider: "oa", model: "gpt-4o", weight: 3, priority: 1 }, { provider: "mock", firstByteTimeoutMs: 500 }], fallbacks: ["small"], retry: { maxAttempts: 4 } },
        small: { provider: "oa", model: "gpt-4o-mini" },
        pair: [{ provider: "oa" }, { provider: "mock" }],
      },
    }, {});
    const chat = modelRouteOf(config, "chat")!;
    assert.deepEqual(chat.retry, { maxAttempts: 4, backoffMs: 50, maxBackoffMs: 2000, maxRetryAfterMs: 5000, billedRetries: 0 });
    assert.equal(chat.timeoutMs, 30_000);
    assert.deepEqual(chat.targets.map((t) => [t.weight, t.priority, t.firstByteTimeoutMs]), [[3, 1, undefined], [1, 0, 500]]);
    // Without a retry setting, each target is tried once.
    assert.equal(modelRouteOf(config, "pair")!.retry.maxAttempts, 2);
    assert.equal(modelRouteOf(config, "small")!.retry.maxAttempts, 1);
  });

  test("a weight of 0 or below is an error at its path", () => {
    assert.deepEqual(problems({ m: { provider: "oa", weight: 0 } }), ["models.m.weight: must be greater than 0"]);
    assert.deepEqual(problems({ m: [{ provider: "oa" }, { provider: "mock", weight: -2 }] }), ["models.m[1].weight: must be greater than 0"]);
    assert.deepEqual(problems({ m: { targets: [{ provider: "oa", weight: 0 }] } }), ["models.m.targets[0].weight: must be greater than 0"]);
  });

  test("a fallback or context fallback naming no model, an unknown provider", () => {
    assert.deepEqual(problems({ m: { targets: [{ provider: "oa" }], fallbacks: ["nope"], contextFallback: "bigger" } }), [
      'models.m.fallbacks[0]: unknown model "nope"',
      'models.m.contextFallback: unknown model "bigger"',
    ]);
    assert.deepEqual(problems({ m: { targets: [{ provider: "oa" }, { provider: "gone" }] } }), ['models.m.targets[1].provider: unknown provider "gone" (configured: oa, an, mock)']);
  });

  test("a fallback chain that loops is an error naming the loop", () => {
    assert.deepEqual(problems({ a: { targets: [{ provider: "oa" }], fallbacks: ["a"] } }), ["models.a.fallbacks[0]: fallback loop: a → a"]);
    const found = problems({
      a: { targets: [{ provider: "oa" }], fallbacks: ["b"] },
      b: { targets: [{ provider: "oa" }], fallbacks: ["c"] },
      c: { targets: [{ provider: "oa" }], contextFallback: "a" },
    });
    assert.ok(found.includes("models.a.fallbacks[0]: fallback loop: a → b → c → a"), found.join("\n"));
  });

  test("targets or fallbacks mixing wire formats are errors", () => {
    assert.deepEqual(problems({ m: [{ provider: "oa" }, { provider: "an" }] }), [
      "models.m: the targets speak different wire formats (oa: openai; an: anthropic); every target of a model must speak one the others do",
    ]);
    assert.deepEqual(problems({ m: { targets: [{ provider: "oa" }], fallbacks: ["claude"] }, claude: { provider: "an" } }), [
      'models.m.fallbacks[0]: "claude" is served through anthropic and "m" through openai: a fallback must speak the model\'s wire format',
    ]);
    // The mock speaks both: it goes with either.
    assert.doesNotThrow(() => validateConfig({ providers: PROVIDERS, models: { m: [{ provider: "oa" }, { provider: "mock" }], n: [{ provider: "an" }, { provider: "mock" }] } }, {}));
  });

  test("a fault script on a mock at a baseUrl is an error (it runs in the in-process mock only)", () => {
    assert.deepEqual(problems({ m: { provider: "remote" } }, { providers: { remote: { type: "mock", baseUrl: "http://127.0.0.1:9090", faults: { failFirst: 1 } } } }), [
      "providers.remote.faults: a fault script runs in the in-process mock only; a `renio mock` at baseUrl takes its script from POST /_mock/script",
    ]);
  });
});
