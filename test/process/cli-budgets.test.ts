import assert from "node:assert/strict";
import process from "node:process";
import { after, before, describe, test } from "node:test";
import { join } from "node:path";
import OpenAI from "openai";
import { ADMIN_TOKEN } from "../support/admin-api.ts";
import { startMockServer, TEST_KEY, type MockServer } from "../support/relay-harness.ts";
import { relayConfig, runRenio, scratchDir, startRelayProcess, writeConfig, type RenioProcess } from "../support/relay-process.ts";
import { eventually } from "../support/sse-bytes.ts";

let mock: MockServer;
let configPath: string;
let relay: RenioProcess | undefined;

before(async () => {
  mock = await startMockServer();
  const dir = scratchDir();
  configPath = writeConfig(
    dir,
    relayConfig(mock.url, { type: "sqlite", path: join(dir, "renio.db") }, {
      server: { host: "127.0.0.1", port: 0, shutdownGraceMs: 5000, adminToken: ADMIN_TOKEN },
      budget: { storePollMs: 100 },
      budgets: [{ id: "from-config", scope: "total", period: "month", limit: 1000 }],
    }),
  );
});

after(async () => {
  if (relay) assert.equal((await relay.stop()).code, 0, relay.output());
  await mock.stop();
});

/** `renio budgets ARGS`, with RENIO_ADMIN_TOKEN set to `token` (null: unset). */
async function budgets(args: string[], token: string | null = ADMIN_TOKEN) {
  const saved = process.env["RENIO_ADMIN_TOKEN"];
  if (token === null) delete process.env["RENIO_ADMIN_TOKEN"];
  else process.env["RENIO_ADMIN_TOKEN"] = token;
  try {
    return await runRenio(["budgets", ...args]);
  } finally {
    if (saved === undefined) delete process.env["RENIO_ADMIN_TOKEN"];
    else process.env["RENIO_ADMIN_TOKEN"] = saved;
  }
}

/** One call through the official SDK: "ok" or its error code. */
async function call(): Promise<string> {
  const client = new OpenAI({ apiKey: TEST_KEY, baseURL: `${relay!.url}/v1`, maxRetries: 0, timeout: 10_000 });
  try {
    await client.chat.completions.create({ model: "mock-gpt", messages: [{ role: "user", content: "hello" }], max_tokens: 50 });
    return "ok";
  } catch (error) {
    if (!(error instanceof OpenAI.APIError)) throw error;
    return String(error.code);
  }
}

describe("renio budgets against the store (relay down) and a running relay (--url)", () => {
  test("set on the store while the relay is down; the relay starts with it", async () => {
    const set = await budgets(["set", "cli-team", "--scope", "project:tests", "--period", "day", "--limit", "0", "--config", configPath]);
    assert.equal(set.code, 0, set.stderr);
    assert.equal(set.stdout.trim(), "set budget cli-team: project:tests, day, strict, limit 0");
    const list = await budgets(["list", "--config", configPath]);
    assert.equal(list.code, 0, list.stderr);
    assert.match(list.stdout, /^BUDGET\s+SOURCE\s+SCOPE\s+PERIOD\s+MODE\s+LIMIT/);
    assert.match(list.stdout, /^cli-team\s+store\s+project:tests\s+\d{4}-\d{2}-\d{2}\s+strict\s+0\s/m);
    assert.match(list.stdout, /^from-config\s+config\s+total\s/m);
    relay = await startRelayProcess(configPath);
    assert.equal(await call(), "budget_exceeded");
  });

  test("set, pause, resume through --url take effect on the next call", async () => {
    const raised = await budgets(["set", "cli-team", "--limit", "100", "--url", relay!.url, "--json"]);
    assert.equal(raised.code, 0, raised.stderr);
    const budget = JSON.parse(raised.stdout) as Record<string, unknown>;
    assert.deepEqual([budget["id"], budget["limit"], budget["period"], budget["paused"]], ["cli-team", 100, "day", false]);
    assert.equal(await call(), "ok");
    assert.equal((await budgets(["pause", "cli-team", "--url", relay!.url])).code, 0);
    assert.equal(await call(), "budget_paused");
    const resumed = await budgets(["resume", "cli-team", "--url", relay!.url]);
    assert.equal(resumed.stdout.trim(), "resumed budget cli-team: project:tests, day, strict, limit 100");
    assert.equal(await call(), "ok");
    const listed = JSON.parse((await budgets(["list", "--url", relay!.url, "--json"])).stdout) as Array<Record<string, unknown>>;
    const row = listed.find((r) => r["budgetId"] === "cli-team")!;
    assert.equal(row["source"], "store");
    assert.ok((row["spent"] as number) > 0);
  });

  test("override a config budget for a window through --url, end it on the store", async () => {
    const lowered = await budgets(["override", "from-config", "--limit", "0", "--until", "+1h", "--url", relay!.url]);
    assert.equal(lowered.code, 0, lowered.stderr);
    assert.match(lowered.stdout, /^overrode budget from-config: limit 0 until \d{4}-\d{2}-\d{2}T/);
    assert.equal(await call(), "budget_exceeded", "in force at once on the relay");
    const ended = await budgets(["override", "from-config", "--end", "--config", configPath]);
    assert.equal(ended.code, 0, ended.stderr);
    assert.match(ended.stdout, /^ended the override of budget from-config/);
    assert.ok(await eventually(async () => (await call()) === "ok", 5_000), "the relay polled the end");
  });

  test("set on the store while the relay runs: in force there within budget.storePollMs", async () => {
    assert.equal((await budgets(["set", "cli-team", "--limit", "0", "--config", configPath])).code, 0);
    assert.ok(await eventually(async () => (await call()) === "budget_exceeded", 5_000), "the relay polled the change");
  });

  test("delete through --url stops the budget applying; refusals and mistakes are one line with the right exit code", async () => {
    const deleted = await budgets(["delete", "cli-team", "--url", relay!.url]);
    assert.equal(deleted.code, 0, deleted.stderr);
    assert.match(deleted.stdout, /^deleted budget cli-team: /);
    assert.equal(await call(), "ok");
    const cases: Array<[string[], string | null, number, RegExp]> = [
      [["delete", "cli-team", "--url", relay!.url], ADMIN_TOKEN, 1, /^renio budgets: No budget `cli-team` in the store\n$/],
      [["set", "from-config", "--limit", "1", "--url", relay!.url], ADMIN_TOKEN, 1, /defined in the config file/],
      [["set", "from-config", "--limit", "1", "--config", configPath], ADMIN_TOKEN, 1, /defined in the config file/],
      [["set", "new", "--scope", "total", "--limit", "1", "--mode", "loose", "--url", relay!.url], ADMIN_TOKEN, 2, /--mode must be strict or observe, got "loose"/],
      [["set", "new", "--scope", "group:a", "--limit", "1", "--config", configPath], ADMIN_TOKEN, 2, /--scope must be total, project:NAME, key:ID, team:ID, tag:NAME=VALUE or end-user:PROJECT/],
      [["override", "from-config", "--limit", "1", "--url", relay!.url], ADMIN_TOKEN, 2, /override needs --limit and --until/],
      [["override", "from-config", "--limit", "1", "--until", "tomorrow", "--url", relay!.url], ADMIN_TOKEN, 2, /--until must be an ISO 8601 time/],
      [["override", "nope", "--limit", "1", "--until", "+1h", "--url", relay!.url], ADMIN_TOKEN, 1, /No budget `nope` in the config or the store/],
      [["set", "bad id", "--scope", "total", "--limit", "1", "--url", relay!.url], ADMIN_TOKEN, 2, /Invalid budget: `id`: use letters/],
      [["set", "new", "--scope", "total", "--limit", "10000000", "--config", configPath], ADMIN_TOKEN, 2, /Invalid budget: `limit`: must be at most/],
      [["set", "--limit", "1", "--url", relay!.url], ADMIN_TOKEN, 2, /set needs a budget ID/],
      [["list", "--url", relay!.url], null, 2, /--url needs the admin token in RENIO_ADMIN_TOKEN/],
      [["list", "--url", relay!.url], "wrong-token-wrong-token", 1, /Admin routes need `Authorization: Bearer <admin token>`/],
      [["list", "--url", relay!.url, "--config", configPath], ADMIN_TOKEN, 2, /not both/],
    ];
    for (const [args, token, code, stderr] of cases) {
      const result = await budgets(args, token);
      assert.equal(result.code, code, `${args.join(" ")}: ${result.stderr}`);
      // What the command acted on comes first once a target is found (cli-target.ts); the problem is one line after it.
      const problem = result.stderr.replace(/^renio budgets: (relay|store) .*\n/, "");
      assert.match(problem, stderr, args.join(" "));
      assert.equal(problem.trim().split("\n").length, 1, "one line");
    }
    // `budget` is the same command: status still reads the store.
    const status = await runRenio(["budget", "status", "--config", configPath]);
    assert.equal(status.code, 0, status.stderr);
    assert.match(status.stdout, /^from-config\s+total\s/m);
  });
});
