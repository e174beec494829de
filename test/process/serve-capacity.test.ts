import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { join } from "node:path";
import process from "node:process";
import { after, before, describe, test } from "node:test";
import { capacityNotes } from "../../src/cli/serve-capacity.ts";
import { validateConfig } from "../../src/config/config-load.ts";
import { currentRuntime } from "../../src/runtime/current-runtime.ts";
import { parseOpenFileLimit } from "../../src/runtime/open-files.ts";
import { Scrape, scrape } from "../support/prom-scrape.ts";
import { startMockServer, type MockServer } from "../support/relay-harness.ts";
import { relayConfig, renioArgv, renioEnv, scratchDir, writeConfig } from "../support/relay-process.ts";

/** What `renio serve` says at start about the calls it can hold, and what caps them. */

const server = (overrides: Record<string, unknown> = {}) =>
  validateConfig({ server: overrides, providers: {}, models: {} }, {}).server;

describe("the banner's capacity line", () => {
  test("names Renio's own limits and the open files in force; nothing to warn when they suffice", () => {
    const notes = capacityNotes(server(), { soft: 20_000, hard: 20_000 }, 65_535);
    assert.equal(notes.line, "capacity: 8192 concurrent calls, 1024 wait up to 5000 ms (503 overloaded beyond); open files: 20000");
    assert.deepEqual(notes.warnings, []);
  });

  test("open files below what the concurrent calls need: says how many calls they allow and how to raise them", () => {
    const [warning] = capacityNotes(server(), { soft: 1024, hard: 1024 }, undefined).warnings;
    assert.match(warning!, /open files are limited to 1024 \(the system's hard limit\): enough for about 384 concurrent calls .* fewer than server\.maxConcurrentCalls \(8192\); raise it \(ulimit -n, systemd LimitNOFILE=/);
  });

  test("the runtime's fetch capped below the concurrent calls (an operator's BUN_CONFIG_MAX_HTTP_REQUESTS): named as a hidden queue", () => {
    const [warning] = capacityNotes(server({ maxConcurrentCalls: 1000 }), { soft: 20_000, hard: 20_000 }, 256).warnings;
    assert.match(warning!, /keeps at most 256 requests in flight \(BUN_CONFIG_MAX_HTTP_REQUESTS\) and queues the rest unseen, fewer than server\.maxConcurrentCalls \(1000\)/);
  });

  test("no queue configured: says none waits", () => {
    assert.match(capacityNotes(server({ maxQueuedCalls: 0 }), undefined, undefined).line, /^capacity: 8192 concurrent calls, none waits .*; open files: unknown$/);
  });

  test("/proc/PID/limits is read for the open-file limit", () => {
    const text = "Limit                     Soft Limit           Hard Limit           Units\nMax open files            1024                 524288               files\n";
    assert.deepEqual(parseOpenFileLimit(text), { soft: 1024, hard: 524288 });
    assert.deepEqual(parseOpenFileLimit("Max open files            unlimited            unlimited            files\n"), { soft: Infinity, hard: Infinity });
  });
});

const skip = process.platform !== "linux" ? "reads /proc and sets limits with the shell's ulimit" : false;

describe("renio serve under a low open-file limit", { skip }, () => {
  let mock: MockServer;
  before(async () => {
    mock = await startMockServer();
  });
  after(() => mock.stop());

  test("the soft limit is raised to the hard one at start, the banner says what that allows, /metrics shows it", { timeout: 30_000 }, async () => {
    const dir = scratchDir();
    const token = "metrics-token-for-open-files";
    const configPath = writeConfig(dir, relayConfig(mock.url, { type: "sqlite", path: join(dir, "renio.db") }, { server: { host: "127.0.0.1", port: 0, metricsToken: token } }));
    const args = ["serve", "--config", configPath];
    const [command, argv] = renioArgv(args);
    const quoted = [command, ...argv].map((part) => `'${part.replaceAll("'", "'\\''")}'`).join(" ");
    const child = spawn("bash", ["-c", `ulimit -Sn 512 && ulimit -Hn 1024 && exec ${quoted}`], { stdio: ["ignore", "pipe", "pipe"], env: renioEnv(args) });
    let stdout = "";
    let stderr = "";
    child.stdout.setEncoding("utf8").on("data", (text: string) => (stdout += text));
    child.stderr.setEncoding("utf8").on("data", (text: string) => (stderr += text));
    let closed = false;
    const exited = new Promise((resolve) => child.once("close", () => resolve((closed = true))));
    try {
      const deadline = Date.now() + 20_000;
      // The banner (stdout) and the warning (stderr) come through two pipes: wait for both.
      while (!(/^capacity: .*$/m.test(stdout) && /open files are limited/.test(stderr)) && !closed && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 50));
      assert.match(stdout, /^capacity: 8192 concurrent calls, 1024 wait up to 5000 ms \(503 overloaded beyond\); open files: 1024$/m, stdout + stderr);
      assert.match(stderr, /open files are limited to 1024 \(the system's hard limit\): enough for about 384 concurrent calls/);
      const url = /listening on (http:\/\/\S+)/.exec(stdout)![1]!;
      const metrics = new Scrape((await scrape(url, token)).text);
      assert.equal(metrics.sum("process_max_fds"), 1024);
      assert.ok(metrics.sum("process_open_fds") > 0);
      assert.equal(metrics.sum("renio_concurrent_calls_limit"), 8192);
      if ((await currentRuntime()).name === "bun") assert.equal(metrics.sum("renio_upstream_requests_limit"), 65_535, "Bun's fetch runs with its cap raised");
    } finally {
      child.kill("SIGTERM");
      await exited;
    }
  });
});
