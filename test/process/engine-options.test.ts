import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import process from "node:process";
import { after, before, describe, test } from "node:test";
import { currentRuntime } from "../../src/runtime/current-runtime.ts";
import { startMockServer, type MockServer } from "../support/relay-harness.ts";
import { environOf } from "../support/proc-environ.ts";
import { startChildServer } from "../../src/bench/bench-child.ts";
import { sourceCommand } from "../support/cli-process.ts";
import { relayConfig, scratchDir, startRelayProcess, writeConfig } from "../support/relay-process.ts";

/** `renio serve` on Bun runs JavaScriptCore without its FTL tier and mimalloc without purging holes (src/runtime/engine-options-bun.ts). */

const skip = process.platform !== "linux" ? "reads the child's environment from /proc/PID/environ" : (await currentRuntime()).name !== "bun" ? "the engine options are Bun's" : false;
const OPTION = "BUN_JSC_useFTLJIT";
const ALLOCATOR_OPTION = "MIMALLOC_PURGE_HOLES";

let mock: MockServer;
before(async () => {
  mock = await startMockServer();
});
after(() => mock.stop());

/**
 * The environment of a relay that `start` starts (with a fresh config) while `vars` are set in
 * this process's; the relay is stopped and the variables removed again.
 */
async function environWith(vars: Record<string, string>, start: (config: string) => Promise<{ pid: number; stop(): Promise<unknown> }>): Promise<Map<string, string>> {
  Object.assign(process.env, vars);
  try {
    const dir = scratchDir();
    const relay = await start(writeConfig(dir, relayConfig(mock.url, { type: "sqlite", path: join(dir, "renio.db") })));
    try {
      return environOf(relay.pid);
    } finally {
      await relay.stop();
    }
  } finally {
    for (const name of Object.keys(vars)) delete process.env[name];
  }
}

describe("engine options of renio serve", { skip }, () => {
  test("the process replaces itself (same pid) with one started with the options set, and serves", async () => {
    assert.equal(process.env[OPTION], undefined, "the test gives the child no engine option");
    assert.equal(process.env[ALLOCATOR_OPTION], undefined, "the test gives the child no allocator option");
    const dir = scratchDir();
    const relay = await startRelayProcess(writeConfig(dir, relayConfig(mock.url, { type: "sqlite", path: join(dir, "renio.db") })));
    try {
      const env = environOf(relay.child.pid!);
      assert.equal(env.get(OPTION), "0");
      assert.equal(env.get(ALLOCATOR_OPTION), "0");
      assert.equal(env.get("BUN_CONFIG_MAX_HTTP_REQUESTS"), "65535", "Bun's fetch holds as many requests in flight as it can: Renio's own limit binds");
      const health = await fetch(`${relay.url}/healthz`);
      assert.equal(health.status, 200);
      await health.arrayBuffer();
    } finally {
      await relay.stop();
    }
  });

  test("an option the operator set keeps the operator's value, the others are added", async () => {
    const env = await environWith({ [ALLOCATOR_OPTION]: "1" }, async (config) => {
      const relay = await startRelayProcess(config);
      return { pid: relay.child.pid!, stop: () => relay.stop() };
    });
    assert.equal(env.get(ALLOCATOR_OPTION), "1");
    assert.equal(env.get(OPTION), "0");
  });

  test("the relays renio bench starts get the operator's engine and allocator options", async () => {
    const env = await environWith({ [OPTION]: "1", [ALLOCATOR_OPTION]: "1" }, (config) => startChildServer("relay", [...sourceCommand(), "serve", "--config", config]));
    assert.equal(env.get(OPTION), "1");
    assert.equal(env.get(ALLOCATOR_OPTION), "1");
  });

  test("run from source, Bun's own flags are kept across the restart", async () => {
    const dir = scratchDir();
    const config = writeConfig(dir, relayConfig(mock.url, { type: "sqlite", path: join(dir, "renio.db") }));
    const [bun, main] = sourceCommand() as [string, string];
    const relay = await startChildServer("relay", [bun, "--smol", main, "serve", "--config", config]);
    try {
      const argv = readFileSync(`/proc/${relay.pid}/cmdline`, "utf8").split("\0");
      assert.deepEqual(argv.slice(1, 3), ["--smol", main], argv.join(" "));
      assert.equal(environOf(relay.pid).get(OPTION), "0", "the restart happened");
    } finally {
      await relay.stop();
    }
  });
});
