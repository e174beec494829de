import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import type { JournalEntry } from "../../../src/shared/journal-records.ts";
import type { Store } from "../../../src/storage/store.ts";
import { startMockServer, startRelay, type MockServer, type RelayUnderTest } from "../../support/relay-harness.ts";
import { chatBody, finishedEntries, openStore, post } from "../../support/relay-calls.ts";
import { runRenio, writeConfig } from "../../support/relay-process.ts";

const ADMIN_TOKEN = "admin-token-for-region-tests-0123";
const EU_KEY = "sk-renio-eu-only-key-0001";
const US_KEY = "sk-renio-us-only-key-0002";
const ANY_KEY = "sk-renio-any-region-key-0003";

let mock: MockServer;
let relay: RelayUnderTest;
let store: Store;
let configPath: string;

before(async () => {
  mock = await startMockServer();
  relay = await startRelay(mock.url, {
    server: { host: "127.0.0.1", port: 0, shutdownGraceMs: 2000, adminToken: ADMIN_TOKEN },
    providers: {
      "mock-eu": { type: "mock", baseUrl: mock.url, region: "eu" },
      "mock-us": { type: "mock", baseUrl: mock.url, region: "us" },
    },
    models: {
      "eu-gpt": { provider: "mock-eu", model: "mock-gpt" },
      "us-gpt": { provider: "mock-us", model: "mock-gpt" },
      // The first target whose region the key allows serves the call.
      "any-gpt": [{ provider: "mock-eu", model: "mock-gpt" }, { provider: "mock-us", model: "mock-gpt" }],
    },
    keys: [
      { id: "eu", secret: EU_KEY, regions: ["eu"] },
      { id: "us", secret: US_KEY, regions: ["us"] },
      { id: "any", secret: ANY_KEY },
    ],
  });
  configPath = writeConfig(relay.dir, relay.config as unknown as Record<string, unknown>);
  store = await openStore(relay.config.storage);
});

after(async () => {
  await store.close();
  await relay.stop();
  await mock.stop();
});

async function models(key: string, headers: Record<string, string> = {}): Promise<string[]> {
  const response = await fetch(`${relay.url}/v1/models`, { headers: { authorization: `Bearer ${key}`, ...headers } });
  assert.equal(response.status, 200);
  // The Anthropic listing carries Anthropic's request id header too.
  assert.equal(response.headers.get("request-id"), "anthropic-version" in headers ? response.headers.get("x-request-id") : null);
  return ((await response.json()) as { data: { id: string }[] }).data.map((m) => m.id).sort();
}

describe("regions: what a key may call is what it is shown, and the journal says where calls went", () => {
  test("GET /v1/models lists only the models a key's regions allow (both listing shapes)", async () => {
    assert.deepEqual(await models(EU_KEY), ["any-gpt", "eu-gpt"]);
    assert.deepEqual(await models(US_KEY), ["any-gpt", "us-gpt"]);
    assert.deepEqual(await models(ANY_KEY), ["any-gpt", "eu-gpt", "us-gpt"]);
    assert.deepEqual(await models(EU_KEY, { "anthropic-version": "2023-06-01" }), ["any-gpt", "eu-gpt"]);
    // What is not listed cannot be called.
    const refused = await post(relay.url, "/v1/chat/completions", chatBody({ model: "us-gpt" }), { authorization: `Bearer ${EU_KEY}` });
    assert.equal(refused.status, 403);
    assert.equal(((await refused.json()) as { error: { code: string } }).error.code, "region_not_allowed");
  });

  test("each entry records the region its call was routed to: store, renio journal list, /admin/journal", async () => {
    const calls: Array<[string, string, string]> = [[EU_KEY, "any-gpt", "eu"], [US_KEY, "any-gpt", "us"], [ANY_KEY, "us-gpt", "us"]];
    const ids: string[] = [];
    for (const [key, model] of calls) {
      const response = await post(relay.url, "/v1/chat/completions", chatBody({ model }), { authorization: `Bearer ${key}` });
      assert.equal(response.status, 200);
      await response.arrayBuffer();
      ids.push(response.headers.get("x-request-id")!);
    }
    const byId = await finishedEntries(store, ids);
    assert.deepEqual(ids.map((id) => byId.get(id)!.region), calls.map(([, , region]) => region));

    const admin = await fetch(`${relay.url}/admin/journal?limit=1000`, { headers: { authorization: `Bearer ${ADMIN_TOKEN}` } });
    assert.equal(admin.status, 200);
    const listed = new Map(((await admin.json()) as { data: JournalEntry[] }).data.map((e) => [e.id, e]));
    assert.deepEqual(ids.map((id) => listed.get(id)?.region), calls.map(([, , region]) => region));
    const refused = [...listed.values()].find((e) => e.errorCode === "region_not_allowed");
    assert.equal(refused?.region, null, "a call refused before routing has no region");

    const json = await runRenio(["journal", "list", "--json", "--config", configPath]);
    assert.equal(json.code, 0, json.stderr);
    const cli = new Map((JSON.parse(json.stdout) as JournalEntry[]).map((e) => [e.id, e]));
    assert.deepEqual(ids.map((id) => cli.get(id)?.region), calls.map(([, , region]) => region));
    const table = await runRenio(["journal", "list", "--key", "us", "--config", configPath]);
    assert.equal(table.code, 0, table.stderr);
    assert.match(table.stdout, /^TIME\s+ID\s+KEY\s+MODEL\s+REGION\s+OUTCOME/);
    assert.match(table.stdout, new RegExp(`${ids[1]}\\s+us\\s+any-gpt\\s+us\\s+ok\\s`));
  });
});
