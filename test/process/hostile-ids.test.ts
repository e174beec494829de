import assert from "node:assert/strict";
import { writeFileSync } from "node:fs";
import process from "node:process";
import { after, before, describe, test } from "node:test";
import type { StorageConfig } from "../../src/config/config-schema.ts";
import { admin, ADMIN_TOKEN, listedBudgets } from "../support/admin-api.ts";
import { testPostgresUrl } from "../support/postgres.ts";
import { startMockServer, TEST_KEY, type MockServer } from "../support/relay-harness.ts";
import { relayConfig, runRenio, scratchDir, startRelayProcess, writeConfig, type RenioProcess } from "../support/relay-process.ts";
import { chatBody, post } from "../support/relay-calls.ts";
import { pgExec } from "../support/store-targets.ts";
import { runCommand, sourceCommand } from "../support/cli-process.ts";

/**
 * Ids that name members of `Object.prototype`, given to every kind of id a caller or an
 * operator names: budgets (admin API, `renio budgets set`, the config file), keys, projects,
 * models, providers. A lookup on a plain object finds the inherited member; these must be
 * ordinary ids, charged and listed like any other, and a relay holding them restarts.
 */
const PROTOTYPE_NAMES = ["constructor", "toString", "__proto__", "hasOwnProperty", "valueOf", "isPrototypeOf", "__defineGetter__"];

let mock: MockServer;
before(async () => {
  mock = await startMockServer();
});
after(() => mock.stop());

interface JournalEntryView {
  id: string;
  outcome: string;
  cost: number | null;
  keyId: string | null;
  project: string | null;
  model: string | null;
}

/** The journal entry of the call with `requestId`, once it has finished (bounded: completions are batched). */
async function finishedEntry(url: string, requestId: string): Promise<JournalEntryView> {
  const deadline = Date.now() + 5_000;
  for (;;) {
    const answer = await admin<{ data: JournalEntryView[] }>(url, "GET", `/journal?request_id=${encodeURIComponent(requestId)}`);
    assert.equal(answer.status, 200, JSON.stringify(answer.body));
    const entry = answer.body.data[0];
    if (entry !== undefined && entry.outcome !== "started") return entry;
    assert.ok(Date.now() < deadline, `the entry of ${requestId} did not finish: ${JSON.stringify(entry)}`);
    await new Promise<void>((resolve) => setTimeout(resolve, 20));
  }
}

/** One chat call with the given key and model; asserts it is served, returns its finished entry. */
async function servedCall(url: string, requestId: string, key = TEST_KEY, model = "mock-gpt"): Promise<JournalEntryView> {
  const response = await post(url, "/v1/chat/completions", chatBody({ model }), { authorization: `Bearer ${key}`, "x-request-id": requestId });
  const text = await response.text();
  assert.equal(response.status, 200, text);
  const entry = await finishedEntry(url, requestId);
  assert.equal(entry.outcome, "ok");
  assert.ok(entry.cost !== null && entry.cost > 0);
  return entry;
}

/** A storage of each backend, fresh per use. */
const backends: { name: string; storage: (dir: string, tag: string) => Promise<StorageConfig> }[] = [
  { name: "sqlite", storage: (dir) => Promise.resolve({ type: "sqlite", path: `${dir}/renio.db` }) },
  {
    name: "postgres",
    storage: async (_dir, tag) => {
      const base = testPostgresUrl();
      const name = `renio_hostile_ids_${tag}_${process.pid}`;
      await pgExec(base, `create database ${name}`);
      const url = new URL(base);
      url.pathname = `/${name}`;
      return { type: "postgres", url: url.toString(), poolSize: 4 };
    },
  },
];

describe("ids naming Object.prototype members in the config file", () => {
  test("`renio config check` reports a key's model or a budget's scope that only Object.prototype has, and a `__proto__` name", async () => {
    const dir = scratchDir();
    const configPath = writeConfig(dir, relayConfig(mock.url, { type: "sqlite", path: `${dir}/renio.db` }, {
      keys: [{ id: "k", secret: "sk-renio-proto-key-000001", models: ["constructor"] }],
      rateLimits: [{ scope: { model: "toString" }, requestsPerMinute: 5 }],
    }));
    const check = await runRenio(["config", "check", configPath]);
    assert.equal(check.code, 2, check.stdout + check.stderr);
    assert.match(check.stdout + check.stderr, /keys\[0\]\.models\[0\]: unknown model "constructor"/);
    assert.match(check.stdout + check.stderr, /rateLimits\[0\]\.scope\.model: .*"toString"/);
    // JSON.parse keeps a "__proto__" key as a key; the config refuses it by name instead of dropping it.
    const protoPath = `${dir}/proto.json`;
    writeFileSync(protoPath, JSON.stringify(relayConfig(mock.url, { type: "sqlite", path: `${dir}/renio.db` })).replace('"models":{', '"models":{"__proto__":{"provider":"mock"},'));
    const proto = await runRenio(["config", "check", protoPath]);
    assert.equal(proto.code, 2, proto.stdout + proto.stderr);
    assert.match(proto.stdout + proto.stderr, /models\.__proto__: `__proto__` cannot be a name in the config/);
  });
});

for (const backend of backends) {
  describe(`ids naming Object.prototype members (${backend.name})`, () => {
    test("budgets created through the admin API and `renio budgets set` are charged, listed and survive a restart", async () => {
      const dir = scratchDir();
      const storage = await backend.storage(dir, "api");
      const configPath = writeConfig(dir, relayConfig(mock.url, storage, { server: { host: "127.0.0.1", port: 0, shutdownGraceMs: 5000, adminToken: ADMIN_TOKEN } }));
      let relay: RenioProcess = await startRelayProcess(configPath);
      try {
        const [first, ...rest] = PROTOTYPE_NAMES;
        // One through the CLI against the store, the rest through the running relay's admin API.
        // `renio budgets … --url` reads the admin token from its environment (given to this child only).
        const set = await runCommand([...sourceCommand(), "budgets", "set", first!, "--scope", "total", "--period", "total", "--limit", "100", "--url", relay.url], { env: { RENIO_ADMIN_TOKEN: ADMIN_TOKEN } });
        assert.equal(set.code, 0, set.stdout + set.stderr);
        for (const id of rest) {
          const created = await admin(relay.url, "POST", "/budgets", { id, scope: "total", period: "total", limit: 100, mode: "strict" });
          assert.equal(created.status, 201, `${id}: ${JSON.stringify(created.body)}`);
        }
        const entry = await servedCall(relay.url, "proto-call-1");
        const budgets = await listedBudgets(relay.url);
        for (const id of PROTOTYPE_NAMES) {
          assert.equal(budgets.get(id)?.spent, entry.cost, `${id} charged the call's cost`);
          assert.equal(budgets.get(id)?.reserved, 0, `${id} holds no reservation`);
        }
        // A second call after the first was applied: the journal still moves.
        await servedCall(relay.url, "proto-call-2");

        assert.equal((await relay.stop()).code, 0, relay.output());
        relay = await startRelayProcess(configPath);
        const again = await listedBudgets(relay.url);
        for (const id of PROTOTYPE_NAMES) assert.equal(again.get(id)?.spent, 2 * entry.cost!, `${id} after the restart`);
        // Deleting one and restarting again: its rows stay, the relay starts.
        assert.equal((await admin(relay.url, "DELETE", "/budgets/constructor")).status, 200);
        await servedCall(relay.url, "proto-call-3");
        assert.equal((await relay.stop()).code, 0, relay.output());
        relay = await startRelayProcess(configPath);
        await servedCall(relay.url, "proto-call-4");
        assert.equal((await admin(relay.url, "GET", "/journal")).status, 200);
      } finally {
        await relay.stop();
      }
    });

    test("a relay killed with charges to such budgets still in its log starts again and applies them", async () => {
      const dir = scratchDir();
      const storage = await backend.storage(dir, "kill");
      const configPath = writeConfig(dir, relayConfig(mock.url, storage, { server: { host: "127.0.0.1", port: 0, shutdownGraceMs: 5000, adminToken: ADMIN_TOKEN } }));
      let relay = await startRelayProcess(configPath);
      try {
        for (const id of PROTOTYPE_NAMES) assert.equal((await admin(relay.url, "POST", "/budgets", { id, scope: "total", period: "total", limit: 100 })).status, 201);
        const response = await post(relay.url, "/v1/chat/completions", chatBody(), { "x-request-id": "killed-call" });
        assert.equal(response.status, 200, await response.text());
        // At once, before the completion is applied to the database (SQLite: it is in the admission log only).
        await relay.stop("SIGKILL");
        relay = await startRelayProcess(configPath);
        // Finished in the log before the kill (ok, its cost), or caught in flight (interrupted, its reservation kept charged).
        const entry = await finishedEntry(relay.url, "killed-call");
        assert.ok(entry.outcome === "ok" || entry.outcome === "interrupted", entry.outcome);
        const budgets = await listedBudgets(relay.url);
        const charged = PROTOTYPE_NAMES.map((id) => (budgets.get(id)?.spent ?? 0) + (budgets.get(id)?.reserved ?? 0));
        assert.ok(charged[0]! > 0 && charged.every((amount) => amount === charged[0]), JSON.stringify(charged));
        if (entry.outcome === "ok") assert.equal(charged[0], entry.cost);
        await servedCall(relay.url, "after-kill");
      } finally {
        await relay.stop();
      }
    });

    test("budgets, keys, projects, models and providers from the config file", async () => {
      const dir = scratchDir();
      const storage = await backend.storage(dir, "config");
      const raw = relayConfig(mock.url, storage, {
        server: { host: "127.0.0.1", port: 0, shutdownGraceMs: 5000, adminToken: ADMIN_TOKEN },
        providers: { constructor: { type: "mock", baseUrl: mock.url, firstByteTimeoutMs: 15_000 } },
        models: {
          toString: { provider: "constructor", model: "valueOf" },
          hasOwnProperty: { provider: "constructor" },
          "mock-gpt": { provider: "constructor" },
        },
        prices: { toString: { input: 1, output: 2 }, hasOwnProperty: { input: 1, output: 2 } },
        keys: [
          { id: "constructor", secret: "sk-renio-proto-key-000001", project: "__proto__" },
          { id: "valueOf", secret: "sk-renio-proto-key-000002", project: "toString", models: ["toString"] },
        ],
        budgets: [
          { id: "constructor", scope: "total", period: "total", limit: 100, alerts: undefined },
          { id: "toString", scope: { project: "__proto__" }, period: "month", limit: 100 },
          { id: "valueOf", scope: { key: "valueOf" }, period: "day", limit: 100 },
        ],
      });
      const configPath = writeConfig(dir, raw);
      const check = await runRenio(["config", "check", configPath]);
      assert.equal(check.code, 0, check.stdout + check.stderr);
      let relay = await startRelayProcess(configPath);
      try {
        const byProto = await servedCall(relay.url, "cfg-call-1", "sk-renio-proto-key-000001", "hasOwnProperty");
        assert.deepEqual([byProto.keyId, byProto.project, byProto.model], ["constructor", "__proto__", "hasOwnProperty"]);
        const byValueOf = await servedCall(relay.url, "cfg-call-2", "sk-renio-proto-key-000002", "toString");
        const budgets = await listedBudgets(relay.url);
        assert.equal(budgets.get("constructor")?.spent, byProto.cost! + byValueOf.cost!);
        assert.equal(budgets.get("toString")?.spent, byProto.cost);
        assert.equal(budgets.get("valueOf")?.spent, byValueOf.cost);
        // A model name that is a prototype member but not configured is unknown, not a crash.
        const unknown = await post(relay.url, "/v1/chat/completions", chatBody({ model: "isPrototypeOf" }), { authorization: "Bearer sk-renio-proto-key-000001" });
        assert.equal(unknown.status, 404, await unknown.text());
        const forbidden = await post(relay.url, "/v1/chat/completions", chatBody({ model: "hasOwnProperty" }), { authorization: "Bearer sk-renio-proto-key-000002" });
        assert.equal(forbidden.status, 403, await forbidden.text());
        assert.equal((await relay.stop()).code, 0, relay.output());
        relay = await startRelayProcess(configPath);
        assert.equal((await listedBudgets(relay.url)).get("constructor")?.spent, byProto.cost! + byValueOf.cost!);
        await servedCall(relay.url, "cfg-call-3", "sk-renio-proto-key-000001", "toString");
      } finally {
        await relay.stop();
      }
    });
  });
}
