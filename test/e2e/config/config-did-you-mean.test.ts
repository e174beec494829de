import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { ConfigError, formatProblem } from "../../../src/config/config-error.ts";
import { parseConfigText } from "../../../src/config/config-load.ts";

/** Every problem of a config text, as `renio config check` prints them (`FILE:LINE:COL: path: message`). */
function problems(text: string, source = "renio.json"): string[] {
  try {
    parseConfigText(text, {}, source);
  } catch (error) {
    assert.ok(error instanceof ConfigError);
    return error.problems.map(formatProblem);
  }
  assert.fail("the config was accepted");
}

describe("config problems offer the name that was meant", () => {
  test("a typo inside a model entry (a union of one target, a list and a routed entry) names the key, not `Invalid input`", () => {
    const text = `{
  "providers": { "mock": { "type": "mock" } },
  "models": {
    "gpt-4o-mini": { "provder": "mock" },
    "listed": [{ "provider": "mock", "modle": "x" }],
    "routed": { "targets": [{ "provider": "mock" }], "fallback": ["gpt-4o-mini"] },
    "single": { "provider": "mock", "fallbacks": ["routed"] }
  }
}
`;
    assert.deepEqual(problems(text).sort(), [
      'renio.json:4:22: models.gpt-4o-mini.provder: unknown key; did you mean "provider"?',
      'renio.json:5:38: models.listed[0].modle: unknown key; did you mean "model"?',
      'renio.json:6:54: models.routed.fallback: unknown key; did you mean "fallbacks"?',
      'renio.json:7:37: models.single.fallbacks: unknown key in this form of the entry; "fallbacks" goes with "targets"',
    ]);
  });

  test("in YAML too, at the key's line and column", () => {
    const text = "providers:\n  mock:\n    type: mock\n    chunkz: 4\nmodels:\n  gpt-4o-mini:\n    provder: mock\n";
    assert.deepEqual(problems(text, "renio.yaml").sort(), [
      'renio.yaml:4:5: providers.mock.chunkz: unknown key; did you mean "chunks"?',
      'renio.yaml:7:5: models.gpt-4o-mini.provder: unknown key; did you mean "provider"?',
    ]);
  });

  test("choices: a provider type, a storage type, an enum value", () => {
    const text = `{
  "providers": { "o": { "type": "opena", "apiKey": "sk-0123456789" } },
  "models": {},
  "storage": { "type": "sqlit" },
  "budgets": [{ "id": "b", "scope": "total", "limit": 1, "period": "mont" }]
}
`;
    const found = problems(text);
    assert.equal(found.length, 3, found.join("\n"));
    assert.match(found.find((line) => line.includes("providers.o.type"))!, /^renio\.json:2:25: providers\.o\.type: .*; did you mean "openai"\?$/);
    assert.match(found.find((line) => line.includes("storage.type"))!, /; did you mean "sqlite"\?$/);
    assert.match(found.find((line) => line.includes("budgets[0].period"))!, /; did you mean "month"\?$/);
  });

  test("references: providers, models, keys", () => {
    const text = `{
  "providers": { "mock": { "type": "mock" } },
  "models": { "gpt-4o-mini": { "provider": "mokc" }, "claude": { "targets": [{ "provider": "mock" }], "fallbacks": ["gpt-4o-mni"] } },
  "keys": [{ "id": "team-a", "secret": "sk-renio-0123456789", "models": ["claud"] }],
  "budgets": [{ "id": "b", "scope": { "key": "team-b" }, "limit": 1 }]
}
`;
    assert.deepEqual(problems(text).sort(), [
      'renio.json:3:32: models.gpt-4o-mini.provider: unknown provider "mokc" (configured: mock); did you mean "mock"?',
      'renio.json:3:117: models.claude.fallbacks[0]: unknown model "gpt-4o-mni"; did you mean "gpt-4o-mini"?',
      'renio.json:4:74: keys[0].models[0]: unknown model "claud"; did you mean "claude"?',
      'renio.json:5:39: budgets[0].scope.key: unknown key "team-b"; did you mean "team-a"?',
    ].sort());
  });

  test("nothing is suggested when nothing is close", () => {
    assert.deepEqual(problems('{ "providers": {}, "models": {}, "zzzzzzzz": 1 }'), ["renio.json:1:34: zzzzzzzz: unknown key"]);
  });
});
