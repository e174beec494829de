import assert from "node:assert/strict";
import { copyFileSync, existsSync, mkdtempSync } from "node:fs";
import { join } from "node:path";
import { after, before, describe, test } from "node:test";
import OpenAI from "openai";
import { ADMIN_TOKEN } from "../support/admin-api.ts";
import { runCommand, sourceCommand, type CliResult } from "../support/cli-process.ts";
import { startMockServer, TEST_KEY, type MockServer } from "../support/relay-harness.ts";
import { relayConfig, scratchDir, startRelayProcess, writeConfig, type RenioProcess } from "../support/relay-process.ts";

// Every command that reads or writes a relay's data finds its target the same way (src/cli/cli-target.ts):
// --url or --config, else RENIO_URL or RENIO_CONFIG, else a config file in the working folder, else exit 2.

let mock: MockServer;
let relay: RenioProcess;
let dir: string;
let configPath: string;
let otherConfig: string;

before(async () => {
  mock = await startMockServer();
  dir = scratchDir();
  configPath = writeConfig(
    dir,
    relayConfig(mock.url, { type: "sqlite", path: join(dir, "renio.db") }, {
      server: { host: "127.0.0.1", port: 0, shutdownGraceMs: 5000, adminToken: ADMIN_TOKEN },
      budgets: [{ id: "from-config", scope: "total", period: "month", limit: 1000 }],
    }),
  );
  // A second relay's config and store, never started: what an environment variable points at when a flag must win.
  const other = scratchDir();
  otherConfig = writeConfig(other, relayConfig(mock.url, { type: "sqlite", path: join(other, "other.db") }));
  relay = await startRelayProcess(configPath);
  const client = new OpenAI({ apiKey: TEST_KEY, baseURL: `${relay.url}/v1`, maxRetries: 0, timeout: 10_000 });
  await client.chat.completions.create({ model: "mock-gpt", messages: [{ role: "user", content: "hello" }], max_tokens: 5 });
  // A budget created at run time, through the admin API.
  const created = await fetch(`${relay.url}/admin/budgets`, {
    method: "POST",
    headers: { authorization: `Bearer ${ADMIN_TOKEN}`, "content-type": "application/json" },
    body: JSON.stringify({ id: "made-at-run-time", scope: { project: "tests" }, period: "day", limit: 7 }),
  });
  assert.equal(created.status, 201, await created.text());
});

after(async () => {
  assert.equal((await relay.stop()).code, 0, relay.output());
  await mock.stop();
});

/** `renio ARGS` in `cwd` (default: a fresh empty folder) with exactly `env` of the targeting variables. */
function renio(args: readonly string[], env: Record<string, string> = {}, cwd = mkdtempSync(join(scratchDir(), "cwd-"))): Promise<CliResult> {
  const base = { RENIO_URL: "", RENIO_CONFIG: "", RENIO_ADMIN_TOKEN: ADMIN_TOKEN };
  return runCommand([...sourceCommand(), ...args], { env: { ...base, ...env }, cwd, timeoutMs: 45_000 });
}

/** The first stderr line: what the command says it acted on. */
const actedOn = (result: CliResult): string => result.stderr.split("\n")[0] ?? "";

/** The reading command of each family, as JSON where it has it. */
const FAMILIES: ReadonlyArray<[string, string[]]> = [
  ["keys", ["keys", "list", "--json"]],
  ["audit", ["audit", "list", "--json"]],
  ["journal", ["journal", "list", "--json"]],
  ["budget", ["budget", "status", "--json"]],
  ["budget", ["budget", "report", "--by", "budget", "--json"]],
  ["budgets", ["budgets", "list", "--json"]],
  ["alerts", ["alerts", "list", "--json"]],
];

describe("one targeting rule for every command that reads a relay's data", () => {
  for (const [name, args] of FAMILIES) {
    test(`renio ${args.join(" ")}: --url, --config, RENIO_URL, RENIO_CONFIG, a flag over the variables, refusal with none`, async () => {
      const store = `store SQLite ${join(dir, "renio.db")} (config ${configPath}, from`;
      const [byUrl, byConfig, byUrlEnv, byConfigEnv, urlOverEnv, configOverEnv, none] = await Promise.all([
        renio([...args, "--url", relay.url]),
        renio([...args, "--config", configPath]),
        renio(args, { RENIO_URL: relay.url }),
        renio(args, { RENIO_CONFIG: configPath }),
        renio([...args, "--url", relay.url], { RENIO_CONFIG: otherConfig }),
        renio([...args, "--config", configPath], { RENIO_URL: "http://127.0.0.1:1" }),
        renio(args),
      ]);
      for (const result of [byUrl, byConfig, byUrlEnv, byConfigEnv, urlOverEnv, configOverEnv]) {
        assert.equal(result.code, 0, result.stderr);
        assert.doesNotThrow(() => JSON.parse(result.stdout), "stdout is the JSON alone");
      }
      assert.equal(actedOn(byUrl), `renio ${name}: relay ${relay.url} (from --url)`);
      assert.equal(actedOn(urlOverEnv), `renio ${name}: relay ${relay.url} (from --url)`);
      assert.equal(actedOn(byUrlEnv), `renio ${name}: relay ${relay.url} (from RENIO_URL)`);
      assert.equal(actedOn(byConfig), `renio ${name}: ${store} --config)`);
      assert.equal(actedOn(configOverEnv), `renio ${name}: ${store} --config)`);
      assert.equal(actedOn(byConfigEnv), `renio ${name}: ${store} RENIO_CONFIG)`);
      assert.equal(none.code, 2, none.stderr);
      assert.equal(none.stdout, "");
      assert.equal(none.stderr.trim().split("\n").length, 1, none.stderr);
      assert.match(none.stderr, new RegExp(`^renio ${name}: needs a target: --url URL or RENIO_URL .*--config FILE or RENIO_CONFIG `));
    });
  }

  test("the relay and its store answer alike, run-time budgets and keys included", async () => {
    const both = async (args: string[]) => {
      const [byUrl, byConfig] = await Promise.all([renio([...args, "--url", relay.url]), renio([...args, "--config", configPath])]);
      assert.equal(byUrl.code, 0, byUrl.stderr);
      assert.equal(byConfig.code, 0, byConfig.stderr);
      return [JSON.parse(byUrl.stdout), JSON.parse(byConfig.stdout)] as const;
    };
    for (const rows of await both(["budget", "status", "--json"])) {
      assert.deepEqual(
        (rows as Array<{ budgetId: string; scope: string; limit: number }>).map((r) => [r.budgetId, r.scope, r.limit]),
        [["from-config", "total", 1000], ["made-at-run-time", "project:tests", 7]],
      );
    }
    for (const report of await both(["budget", "report", "--by", "budget", "--json"])) {
      assert.deepEqual([...new Set((report as { rows: Array<{ budgetId: string }> }).rows.map((r) => r.budgetId))], ["from-config", "made-at-run-time"]);
    }
    const [listed, listedOnStore] = await both(["journal", "list", "--json"]);
    const ids = (entries: unknown) => (entries as Array<{ id: string; model: string }>).map((e) => [e.id, e.model]);
    assert.deepEqual(ids(listed), ids(listedOnStore));
    assert.equal(ids(listed).length, 1, "the one call");
    const [shown, shownOnStore] = await both(["journal", "show", ids(listed)[0]![0]!, "--json"]);
    assert.deepEqual(shown, shownOnStore);
    const created = await renio(["keys", "create", "--id", "made-by-cli", "--project", "tests", "--json", "--url", relay.url]);
    assert.equal(created.code, 0, created.stderr);
    for (const keys of await both(["keys", "list", "--json"])) assert.deepEqual((keys as Array<{ id: string }>).map((k) => k.id).sort(), ["made-by-cli", "test"]);
  });

  test("a config file in the working folder counts; two of them, both variables, or reconcile through a relay are refused", async () => {
    const cwd = mkdtempSync(join(scratchDir(), "cwd-"));
    copyFileSync(configPath, join(cwd, "renio.json"));
    const found = await renio(["journal", "list", "--json"], {}, cwd);
    assert.equal(found.code, 0, found.stderr);
    assert.equal(actedOn(found), `renio journal: store SQLite ${join(dir, "renio.db")} (config ${join(cwd, "renio.json")}, from the working folder)`);
    copyFileSync(configPath, join(cwd, "renio.yaml"));
    const [two, variables, reconcile] = await Promise.all([
      renio(["journal", "list"], {}, cwd),
      renio(["keys", "list"], { RENIO_URL: relay.url, RENIO_CONFIG: configPath }),
      renio(["budget", "reconcile", "--url", relay.url]),
    ]);
    assert.equal(two.code, 2);
    assert.match(two.stderr, /^renio journal: the working folder holds renio\.yaml and renio\.json: give --config to choose/);
    assert.equal(variables.code, 2);
    assert.match(variables.stderr, /^renio keys: RENIO_URL and RENIO_CONFIG are both set: give --url or --config to choose/);
    assert.equal(reconcile.code, 2);
    assert.match(reconcile.stderr, /reconcile settles the store of a stopped relay: give --config, not --url/);
  });

  test("--config default: the embedded default's store in the working folder, only when it exists", async () => {
    const cwd = mkdtempSync(join(scratchDir(), "cwd-"));
    const missing = await renio(["budget", "status", "--config", "default"], {}, cwd);
    assert.equal(missing.code, 2);
    assert.match(missing.stderr, /the embedded default's store .*\.renio\/renio\.db does not exist/);
    assert.ok(!existsSync(join(cwd, ".renio")), "no store was created");
    // What `renio serve` without a config leaves in its folder: a store at .renio/renio.db.
    const made = await renio(["keys", "list", "--config", writeConfig(cwd, relayConfig(mock.url, { type: "sqlite", path: ".renio/renio.db" }), "made.json")], {}, cwd);
    assert.equal(made.code, 0, made.stderr);
    const found = await renio(["budget", "status", "--config", "default"], {}, cwd);
    assert.equal(found.code, 0, found.stderr);
    assert.equal(actedOn(found), `renio budget: store SQLite ${join(cwd, ".renio", "renio.db")} (the embedded default, from --config)`);
    assert.match(found.stdout, /^total\s+total\s/m);
  });
});
