import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { validateConfig } from "../config/config-load.ts";
import { benchRelayConfig } from "./bench-relay-config.ts";

const input = { mockUrl: "http://127.0.0.1:9090", dir: "/tmp/renio-bench-test", journal: "fsync", budget: "strict", secret: "renio-bench-secret" } as const;

describe("benchRelayConfig", () => {
  it("serves a passthrough model by the mock itself, priced and budgeted", () => {
    const config = validateConfig(benchRelayConfig({ ...input, model: { name: "mock-gpt", translated: false } }), {});
    assert.equal(config.providers.get("mock")?.type, "mock");
    assert.deepEqual(config.models.get("mock-gpt"), { provider: "mock", translate: false, dropUnsupported: false, weight: 1 });
    assert.deepEqual(config.prices.get("mock-gpt")?.input, 1);
    assert.equal(config.budgets[0]?.scope, "total");
  });

  it("serves a translated model by the mock's Anthropic wire, as an Anthropic provider with translate on", () => {
    const config = validateConfig(benchRelayConfig({ ...input, model: { name: "mock-claude-translated", translated: true } }), {});
    const provider = config.providers.get("mock-anthropic");
    assert.equal(provider?.type, "anthropic");
    assert.equal(provider.type === "anthropic" ? provider.baseUrl : undefined, "http://127.0.0.1:9090");
    assert.deepEqual(config.models.get("mock-claude-translated"), { provider: "mock-anthropic", translate: true, dropUnsupported: false, weight: 1 });
    assert.equal(config.providers.get("mock"), undefined);
  });
});
