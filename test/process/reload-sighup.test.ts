import assert from "node:assert/strict";
import { join } from "node:path";
import { after, before, test } from "node:test";
import OpenAI from "openai";
import { startMockServer, TEST_KEY, type MockServer } from "../support/relay-harness.ts";
import { bounded, relayConfig, scratchDir, startRelayProcess, writeConfig, type RenioProcess } from "../support/relay-process.ts";

const ADDED_KEY = "sk-renio-added-on-sighup-0004";
let mock: MockServer;

before(async () => {
  mock = await startMockServer();
});

after(() => mock.stop());

/** Resolves once the process's output (stdout and stderr) has matched `pattern` `count` times. */
function printed(relay: RenioProcess, pattern: RegExp, count: number): Promise<void> {
  const matches = () => relay.output().match(new RegExp(pattern, "g"))?.length ?? 0;
  const seen = new Promise<void>((resolve) => {
    const check = () => {
      if (matches() < count) return;
      relay.child.stdout?.off("data", check);
      relay.child.stderr?.off("data", check);
      resolve();
    };
    relay.child.stdout?.on("data", check);
    relay.child.stderr?.on("data", check);
    check();
  });
  return bounded(seen, 15_000, () => `no ${pattern} (×${count}) in:\n${relay.output()}`);
}

function chat(apiKey: string, url: string) {
  return new OpenAI({ apiKey, baseURL: `${url}/v1`, maxRetries: 0, timeout: 10_000 }).chat.completions.create({
    model: "mock-gpt",
    messages: [{ role: "user", content: "hi" }],
    max_tokens: 3,
  });
}

test("SIGHUP reloads the file: a key added works; a bad file is refused with its located problem and the relay keeps serving", async () => {
  const dir = scratchDir();
  const raw = relayConfig(mock.url, { type: "sqlite", path: join(dir, "renio.db") });
  const path = writeConfig(dir, raw);
  const relay = await startRelayProcess(path);
  try {
    await assert.rejects(chat(ADDED_KEY, relay.url), { status: 401 });

    writeConfig(dir, { ...raw, keys: [...(raw.keys as object[]), { id: "added", secret: ADDED_KEY }] });
    process.kill(relay.child.pid!, "SIGHUP");
    await printed(relay, /renio: reloaded /, 1);
    assert.equal((await chat(ADDED_KEY, relay.url)).choices.length, 1, "the key added by the reload works");

    writeConfig(dir, { ...raw, keys: [{ id: "added", secret: ADDED_KEY }], budgets: [{ id: "b", scope: "total", limit: -1 }] });
    process.kill(relay.child.pid!, "SIGHUP");
    await printed(relay, /renio: reload refused/, 1);
    await printed(relay, /config: .*renio\.json:\d+:\d+: budgets\[0\]\.limit: /, 1);
    assert.equal((await chat(TEST_KEY, relay.url)).choices.length, 1, "the key the refused file drops still works");
    assert.equal((await chat(ADDED_KEY, relay.url)).choices.length, 1);
  } finally {
    const exit = await relay.stop();
    assert.equal(exit.code, 0, relay.output());
  }
});
