import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import type { Store } from "../../../src/storage/store.ts";
import type { RelayUnderTest } from "../../support/relay-harness.ts";
import { chatBody, finishedEntries, post } from "../../support/relay-calls.ts";
import { eventually } from "../../support/sse-bytes.ts";
import { runRenio, writeConfig } from "../../support/relay-process.ts";
import { startMockRelay } from "../../support/with-relay.ts";

let relay: RelayUnderTest;
let store: Store;
let stop: () => Promise<void>;

before(async () => {
  ({ relay, store, stop } = await startMockRelay());
});

after(() => stop());

test("the caller's x-request-id is journaled and findable; a generated one is not stored as the caller's", async () => {
  const own = await post(relay.url, "/v1/chat/completions", chatBody(), { "x-request-id": "caller-req-7" });
  const refused = await post(relay.url, "/v1/messages", chatBody({ model: "mock-claude" }), { authorization: "Bearer sk-renio-unknown-000", "x-request-id": "caller-req-8" });
  const generated = await post(relay.url, "/v1/chat/completions", chatBody());
  const junk = await post(relay.url, "/v1/chat/completions", chatBody(), { "x-request-id": "has spaces" });
  for (const response of [own, refused, generated, junk]) await response.arrayBuffer();
  assert.deepEqual([own.status, refused.status, generated.status, junk.status], [200, 401, 200, 200]);
  assert.equal(own.headers.get("x-request-id"), "caller-req-7");

  // The journal reaches the database shortly after the call (the admission log holds it first).
  const byRequestId = async (requestId: string) => (await store.listJournal({ limit: 10, requestId })).entries;
  assert.ok(await eventually(async () => (await byRequestId("caller-req-7")).length > 0), "found by the caller's request id");
  const [found] = await byRequestId("caller-req-7");
  assert.ok(found);
  await finishedEntries(store, [found.id]);
  const entry = (await store.listJournal({ limit: 10, requestId: "caller-req-7" })).entries;
  assert.deepEqual(entry.map((e) => [e.requestId, e.outcome, e.model]), [["caller-req-7", "ok", "mock-gpt"]]);
  assert.notEqual(entry[0]!.id, "caller-req-7", "the entry keeps its own unique id");

  assert.ok(await eventually(async () => (await byRequestId("caller-req-8")).length > 0), "the refusal was journaled");
  assert.deepEqual((await byRequestId("caller-req-8")).map((e) => [e.requestId, e.outcome, e.errorCode]), [["caller-req-8", "refused", "invalid_api_key"]]);

  const generatedId = generated.headers.get("x-request-id")!;
  const junkId = junk.headers.get("x-request-id")!;
  const byId = await finishedEntries(store, [generatedId, junkId]);
  assert.equal(byId.get(generatedId)!.requestId, null);
  assert.equal(byId.get(junkId)!.requestId, null);
});

test("renio journal list --request-id finds the caller's entry", async () => {
  const response = await post(relay.url, "/v1/chat/completions", chatBody(), { "x-request-id": "caller-cli-9" });
  await response.arrayBuffer();
  const journaled = async () => (await store.listJournal({ limit: 1, requestId: "caller-cli-9" })).entries;
  assert.ok(await eventually(async () => (await journaled()).length > 0), "journaled");
  const [entry] = await journaled();
  assert.ok(entry);
  const configPath = writeConfig(relay.dir, relay.config as unknown as Record<string, unknown>, "cli.json");
  const listed = await runRenio(["journal", "list", "--request-id", "caller-cli-9", "--json", "--config", configPath]);
  assert.equal(listed.code, 0, listed.stderr);
  const rows = JSON.parse(listed.stdout) as Array<{ id: string; requestId: string }>;
  assert.deepEqual(rows.map((r) => [r.id, r.requestId]), [[entry.id, "caller-cli-9"]]);
  const none = await runRenio(["journal", "list", "--request-id", "nobody", "--json", "--config", configPath]);
  assert.deepEqual(JSON.parse(none.stdout), []);
});
