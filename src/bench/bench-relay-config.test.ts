import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { validateConfig } from "../config/config-load.ts";
import { BUILT_IN_DETECTORS, DETECTOR_GROUPS } from "../config/guardrails-schema.ts";
import { benchRelayConfig, relaySettings } from "./bench-relay-config.ts";

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

  it("gives a guarded Renio one valid policy over every call, every built-in detector on requests and answers; the unguarded none", () => {
    const model = { name: "mock-gpt", translated: false } as const;
    for (const action of ["redact", "log"] as const) {
      const config = validateConfig(benchRelayConfig({ ...input, model, guardrails: action }), {});
      assert.equal(config.guardrails.policies.length, 1);
      const [policy] = config.guardrails.policies;
      assert.deepEqual([policy!.request, policy!.answer], [action, action]);
      assert.deepEqual(policy!.match, { outsideHomeRegion: false }, "no condition: every call");
      assert.deepEqual(policy!.parts, ["messages", "system", "toolArguments", "toolResults"]);
      const named = policy!.detectors.flatMap((name): readonly string[] => (Object.hasOwn(DETECTOR_GROUPS, name) ? DETECTOR_GROUPS[name]! : [name]));
      assert.deepEqual(new Set(named), new Set(BUILT_IN_DETECTORS));
    }
    for (const off of [undefined, "off"] as const) {
      const raw = benchRelayConfig({ ...input, model, ...(off === undefined ? {} : { guardrails: off }) });
      assert.equal("guardrails" in raw, false, "no guardrails section at all");
      assert.deepEqual(validateConfig(raw, {}).guardrails.policies, []);
    }
  });

  it("reports the guardrails settings and the policy only when a Renio was guarded", () => {
    const models = [{ name: "mock-gpt", translated: false }];
    assert.equal(relaySettings(["fsync"], "strict", models).guardrails, undefined);
    assert.equal(relaySettings(["fsync"], "strict", models, undefined, ["off"]).guardrails, undefined);
    assert.deepEqual(relaySettings(["fsync"], "strict", models, undefined, ["off", "redact"]).guardrails, { settings: ["off", "redact"], policy: { id: "bench-all-detectors", detectors: ["pii", "credentials"] } });
  });
});
