import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { ConfigError } from "../../../src/config/config-error.ts";
import { validateConfig } from "../../../src/config/config-load.ts";

const base = (server: Record<string, unknown>, extra: Record<string, unknown> = {}) => ({
  server,
  providers: { mock: { type: "mock" } },
  models: { "mock-gpt": { provider: "mock" } },
  ...extra,
});

function problems(raw: unknown): string[] {
  try {
    validateConfig(raw, {});
  } catch (error) {
    if (error instanceof ConfigError) return error.problems.map((p) => `${p.path.join(".")}: ${p.message}`);
    throw error;
  }
  return [];
}

describe("config of keys issued at run time", () => {
  test("a relay with no config keys may listen beyond loopback when it can issue keys (admin token and a store)", () => {
    assert.deepEqual(problems(base({ host: "0.0.0.0", adminToken: "admin-token-0123456789" })), []);
    assert.match(problems(base({ host: "0.0.0.0" })).join("\n"), /^server\.host: .*without keys configured \(in keys, or issued at run time with server\.adminToken\)/);
    assert.match(problems(base({ host: "0.0.0.0", adminToken: "admin-token-0123456789" }, { journal: { enabled: false } })).join("\n"), /^server\.host: /);
  });

  test("server.keySecret needs 32 characters; server.keyRefreshMs 50 to 60000 (default 1000)", () => {
    assert.deepEqual(problems(base({ keySecret: "short" })), ["server.keySecret: must be at least 32 characters"]);
    assert.match(problems(base({ keyRefreshMs: 10 })).join("\n"), /^server\.keyRefreshMs: /);
    assert.equal(validateConfig(base({}), {}).server.keyRefreshMs, 1000);
  });
});
