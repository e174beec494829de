import assert from "node:assert/strict";
import { join } from "node:path";
import process from "node:process";
import { after, before, describe, test } from "node:test";
import OpenAI from "openai";
import { startChildServer } from "../../src/bench/bench-child.ts";
import { isRuntimeVariable } from "../../src/config/child-environment.ts";
import { sourceCommand } from "../support/cli-process.ts";
import { startMockServer, TEST_KEY, type MockServer } from "../support/relay-harness.ts";
import { environOf } from "../support/proc-environ.ts";
import { relayConfig, scratchDir, startRelayProcess, writeConfig } from "../support/relay-process.ts";

/** Child relays get only what they need from their parent's environment: never an unrelated secret. */

const UNRELATED_SECRET = "REVIEW_UNRELATED_OPENAI_API_KEY";
const REFERENCED = "REVIEW_MOCK_UPSTREAM_KEY";
const LINUX_ONLY = process.platform === "linux" ? false : "reads the child's environment from /proc/PID/environ";

let mock: MockServer;
before(async () => {
  mock = await startMockServer();
  process.env[UNRELATED_SECRET] = "sk-unrelated-secret-must-not-leak-0001";
  process.env[REFERENCED] = "sk-referenced-by-the-config-0002";
  process.env.RENIO_LOG_LEVEL = "warn";
});
after(async () => {
  delete process.env[UNRELATED_SECRET];
  delete process.env[REFERENCED];
  delete process.env.RENIO_LOG_LEVEL;
  await mock.stop();
});

describe("the environment of child relays", () => {
  test("bench's relay gets the runtime's variables and runs; no unrelated secret, no RENIO_* override", { skip: LINUX_ONLY }, async () => {
    const dir = scratchDir();
    const config = writeConfig(dir, relayConfig(mock.url, { type: "sqlite", path: join(dir, "renio.db") }));
    const relay = await startChildServer("relay", [...sourceCommand(), "serve", "--config", config]);
    try {
      const env = environOf(relay.pid);
      assert.equal(env.has(UNRELATED_SECRET), false, "an unrelated secret reached the child");
      assert.equal(env.has(REFERENCED), false, "bench's configs name no variable: none is passed");
      assert.equal(env.has("RENIO_LOG_LEVEL"), false, "an operator's override must not change the setup bench measures");
      assert.equal(env.get("PATH"), process.env.PATH);
      assert.deepEqual([...env.keys()].filter((name) => !isRuntimeVariable(name)), [], "only the runtime's variables (and the engine options the relay sets itself)");
      const health = await fetch(`${relay.url}/healthz`);
      assert.equal(health.status, 200, "the child runs on what it was given");
      await health.arrayBuffer();
    } finally {
      await relay.stop();
    }
  });

  test("a relay started with a config gets the variables its `${VAR}` references name and RENIO_*, and no unrelated secret", { skip: LINUX_ONLY }, async () => {
    const dir = scratchDir();
    const raw = relayConfig(mock.url, { type: "sqlite", path: join(dir, "renio.db") }, {
      // The mock speaks the OpenAI wire format; the key it is sent comes from the parent's environment.
      providers: { mock: { type: "openai", baseUrl: `${mock.url}/v1`, apiKey: `\${${REFERENCED}}` } },
    });
    const relay = await startRelayProcess(writeConfig(dir, raw));
    try {
      const env = environOf(relay.child.pid!);
      assert.equal(env.has(UNRELATED_SECRET), false, "an unrelated secret reached the child");
      assert.equal(env.get(REFERENCED), process.env[REFERENCED], "the config's reference resolves in the child");
      assert.equal(env.get("RENIO_LOG_LEVEL"), "warn");
      const openai = new OpenAI({ apiKey: TEST_KEY, baseURL: `${relay.url}/v1`, maxRetries: 0, timeout: 20_000 });
      const answer = await openai.chat.completions.create({ model: "mock-gpt", messages: [{ role: "user", content: "hi" }], max_tokens: 5 });
      assert.equal(answer.object, "chat.completion");
    } finally {
      await relay.stop();
    }
  });
});
