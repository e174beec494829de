import assert from "node:assert/strict";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, describe, test } from "node:test";
import OpenAI from "openai";
import { startRelayService, type RelayService } from "../../../src/app/relay-service.ts";
import { loadConfigFile } from "../../../src/config/config-load.ts";
import { currentRuntime } from "../../../src/runtime/current-runtime.ts";
import { startMockServer, TEST_KEY, type MockServer } from "../../support/relay-harness.ts";

/** A config reload keeps the rate limits' state: it never hands a limited key a fresh minute. */

const ADMIN = "reload-rates-admin-token-0123";
/** The relay's rate-limit clock: it moves only when a test says, so counts are exact. */
let now = Date.UTC(2026, 11, 4, 3, 0, 0);
let dir: string;
let path: string;
let mock: MockServer;
let service: RelayService;

/** The config file: the harness key on `mock-gpt` under `limit`, and a model `extra` the reload may add. */
function writeFileConfig(limit: Record<string, unknown>, models: Record<string, unknown> = {}): void {
  writeFileSync(path, JSON.stringify({
    server: { host: "127.0.0.1", port: 0, shutdownGraceMs: 5000, admin: { tokens: [{ id: "ops", secret: ADMIN, roles: ["admin"] }] } },
    storage: { type: "sqlite", path: join(dir, "renio.db") },
    providers: { mock: { type: "mock", baseUrl: mock.url, firstByteTimeoutMs: 15_000 } },
    models: { "mock-gpt": { provider: "mock" }, ...models },
    keys: [{ id: "test", secret: TEST_KEY, project: "tests" }],
    rateLimits: [{ scope: { key: "test" }, ...limit }],
  }, null, 2));
}

async function reload(): Promise<void> {
  const response = await fetch(`${service.url}/admin/reload`, { method: "POST", headers: { authorization: `Bearer ${ADMIN}` } });
  assert.equal(response.status, 200);
  assert.equal(((await response.json()) as { reloaded: boolean }).reloaded, true);
}

const openai = () => new OpenAI({ apiKey: TEST_KEY, baseURL: `${service.url}/v1`, maxRetries: 0, timeout: 10_000 });
const call = () => openai().chat.completions.create({ model: "mock-gpt", messages: [{ role: "user", content: "hi" }], max_tokens: 3 }).withResponse();

/** The 429's headers. */
async function refused(): Promise<Headers> {
  const error = await call().catch((e: unknown) => e);
  assert.ok(error instanceof OpenAI.RateLimitError, `expected a 429, got ${String(error)}`);
  assert.equal(error.code, "rate_limit_exceeded");
  assert.ok(error.headers !== undefined);
  return error.headers;
}

before(async () => {
  dir = mkdtempSync(join(tmpdir(), "renio-reload-rates-"));
  path = join(dir, "renio.json");
  mock = await startMockServer();
  writeFileConfig({ requestsPerMinute: 2 });
  service = await startRelayService(await loadConfigFile(path, {}), await currentRuntime(), { loadConfig: () => loadConfigFile(path, {}), log: false, clock: () => now });
});

after(async () => {
  await service.shutdown();
  await mock.stop();
  rmSync(dir, { recursive: true, force: true });
});

describe("rate limits across POST /admin/reload (official openai SDK)", () => {
  test("an exhausted key is still limited after a reload that leaves its limit as it was", async () => {
    await call();
    await call();
    await refused();
    // An unrelated change: the key's limit is the same.
    writeFileConfig({ requestsPerMinute: 2 }, { "other-gpt": { provider: "mock", model: "mock-gpt" } });
    await reload();
    const headers = await refused();
    assert.equal(headers.get("x-ratelimit-remaining-requests"), "0");
    assert.equal(headers.get("retry-after"), "30", "the bucket refills on its old schedule");
  });

  test("a raised limit frees the difference at once, no more: the minute's calls still count", async () => {
    writeFileConfig({ requestsPerMinute: 3 });
    await reload();
    const { response } = await call();
    assert.equal(response.headers.get("x-ratelimit-limit-requests"), "3");
    assert.equal(response.headers.get("x-ratelimit-remaining-requests"), "0");
    await refused();
  });

  test("a lowered limit keeps the key limited, waiting no longer than its new refill", async () => {
    writeFileConfig({ requestsPerMinute: 1 });
    await reload();
    const headers = await refused();
    assert.equal(headers.get("x-ratelimit-limit-requests"), "1");
    assert.equal(headers.get("retry-after"), "60");
    now += 60_000;
    await call();
    await refused();
  });
});
