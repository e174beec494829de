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
import { allEntries, finishedEntries, openStore } from "../../support/relay-calls.ts";
import { eventually } from "../../support/sse-bytes.ts";

const ADMIN = "reload-admin-token-0123456789";
const NEW_KEY = "sk-renio-added-by-reload-0002";
let dir: string;
let path: string;
let mock: MockServer;
let service: RelayService;

/** The relay's config file: the harness key on `mock-gpt`, plus whatever `extra` adds or replaces. */
function fileConfig(extra: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    server: { host: "127.0.0.1", port: 0, shutdownGraceMs: 5000, admin: { tokens: [{ id: "ops", secret: ADMIN, roles: ["admin"] }] } },
    storage: { type: "sqlite", path: join(dir, "renio.db") },
    providers: { mock: { type: "mock", baseUrl: mock.url, firstByteTimeoutMs: 15_000 } },
    models: { "mock-gpt": { provider: "mock" } },
    keys: [{ id: "test", secret: TEST_KEY, project: "tests" }],
    ...extra,
  };
}

function writeFileConfig(raw: Record<string, unknown> | string): void {
  writeFileSync(path, typeof raw === "string" ? raw : JSON.stringify(raw, null, 2));
}

function reload(): Promise<Response> {
  return fetch(`${service.url}/admin/reload`, { method: "POST", headers: { authorization: `Bearer ${ADMIN}` } });
}

function client(apiKey: string): OpenAI {
  return new OpenAI({ apiKey, baseURL: `${service.url}/v1`, maxRetries: 0, timeout: 10_000 });
}

before(async () => {
  dir = mkdtempSync(join(tmpdir(), "renio-reload-"));
  path = join(dir, "renio.json");
  mock = await startMockServer();
  writeFileConfig(fileConfig());
  const config = await loadConfigFile(path, {});
  service = await startRelayService(config, await currentRuntime(), { loadConfig: () => loadConfigFile(path, {}), log: false });
});

after(async () => {
  await service.shutdown();
  await mock.stop();
  rmSync(dir, { recursive: true, force: true });
});

describe("POST /admin/reload", () => {
  test("adds a model and a key: the next calls use them (official openai SDK)", async () => {
    await assert.rejects(client(NEW_KEY).chat.completions.create({ model: "mock-gpt", messages: [{ role: "user", content: "hi" }], max_tokens: 3 }), { status: 401 });
    writeFileConfig(fileConfig({
      models: { "mock-gpt": { provider: "mock" }, "renamed-gpt": { provider: "mock", model: "mock-gpt" } },
      keys: [{ id: "test", secret: TEST_KEY, project: "tests" }, { id: "added", secret: NEW_KEY, project: "new" }],
    }));
    const response = await reload();
    assert.equal(response.status, 200);
    assert.deepEqual(await response.json(), { object: "config.reload", reloaded: true, needs_restart: [] });

    const completion = await client(NEW_KEY).chat.completions.create({ model: "renamed-gpt", messages: [{ role: "user", content: "hi" }], max_tokens: 3 });
    assert.equal(completion.model, "mock-gpt", "routed by the new model entry");
    const models = await client(NEW_KEY).models.list();
    assert.deepEqual(models.data.map((model) => model.id).sort(), ["mock-gpt", "renamed-gpt"]);
  });

  test("removes a key: its next call is 401, while its streaming call admitted before the reload runs to its end", async () => {
    writeFileConfig(fileConfig({ keys: [{ id: "test", secret: TEST_KEY, project: "tests" }, { id: "added", secret: NEW_KEY, project: "new" }] }));
    assert.equal((await reload()).status, 200);

    const stream = await client(NEW_KEY).chat.completions.create(
      { model: "mock-gpt", messages: [{ role: "user", content: "hi" }], max_tokens: 16, stream: true },
      { headers: { "x-mock-fault": "slow=40" } },
    );
    const chunks = stream[Symbol.asyncIterator]();
    const first = await chunks.next();
    assert.equal(first.done, false, "the stream has started");

    writeFileConfig(fileConfig());
    const response = await reload();
    assert.equal(response.status, 200);

    await assert.rejects(
      client(NEW_KEY).chat.completions.create({ model: "mock-gpt", messages: [{ role: "user", content: "hi" }], max_tokens: 3 }),
      (error: unknown) => error instanceof OpenAI.AuthenticationError && error.status === 401,
    );

    let finish: string | null = null;
    for (let next = await chunks.next(); !next.done; next = await chunks.next()) finish = next.value.choices[0]?.finish_reason ?? finish;
    assert.equal(finish, "stop", "the in-flight stream ran to its final chunk");

    const store = await openStore({ type: "sqlite", path: join(dir, "renio.db") });
    try {
      // The database sees a call once the admission log is applied (within two apply delays).
      const streamedEntry = async () => (await allEntries(store)).find((entry) => entry.keyId === "added" && entry.stream);
      assert.ok(await eventually(async () => (await streamedEntry()) !== undefined), "the streamed call is journaled");
      const streamed = (await streamedEntry())!;
      const entry = (await finishedEntries(store, [streamed.id])).get(streamed.id);
      assert.equal(entry?.outcome, "ok", JSON.stringify(entry));
    } finally {
      await store.close();
    }
  });

  test("an invalid file is refused with its located problems; the running config keeps serving", async () => {
    const broken = JSON.stringify(fileConfig({ providers: { mock: { type: "mock", baseUrl: "not a url" } } }), null, 2);
    writeFileConfig(broken);
    const response = await reload();
    assert.equal(response.status, 400);
    const body = (await response.json()) as { error: { code: string; message: string; problems: string[] } };
    assert.equal(body.error.code, "invalid_config");
    assert.match(body.error.message, /running config stays/);
    const line = broken.split("\n").findIndex((text) => text.includes("not a url")) + 1;
    assert.equal(body.error.problems.length, 1);
    assert.match(body.error.problems[0]!, new RegExp(`^${path.replaceAll(/[.\\/]/g, "\\$&")}:${line}:\\d+: providers\\.mock\\.baseUrl: `));

    const completion = await client(TEST_KEY).chat.completions.create({ model: "mock-gpt", messages: [{ role: "user", content: "hi" }], max_tokens: 3 });
    assert.equal(completion.choices.length, 1, "the old config still serves");
  });

  test("settings that need a restart are reported, not silently ignored; the rest applies", async () => {
    const raw = fileConfig({ keys: [{ id: "test", secret: TEST_KEY, project: "tests" }, { id: "added", secret: NEW_KEY, project: "new" }] });
    writeFileConfig({ ...raw, server: { ...(raw.server as object), port: 1 }, journal: { durability: "process" } });
    const response = await reload();
    assert.equal(response.status, 200);
    assert.deepEqual(((await response.json()) as { needs_restart: string[] }).needs_restart, ["server.port", "journal.durability"]);
    // Every reload is in the admin audit, refused ones too, with the token's id as actor.
    const audit = await fetch(`${service.url}/admin/audit?action=config.reload`, { headers: { authorization: `Bearer ${ADMIN}` } });
    const events = ((await audit.json()) as { data: Array<{ actor: string; after: { reloaded: boolean } }> }).data;
    assert.ok(events.length >= 2, "each reload of this file is recorded");
    assert.deepEqual([events[0]!.actor, events[0]!.after.reloaded], ["ops", true]);
    assert.ok(events.some((event) => !event.after.reloaded), "the refused reload too");
    const completion = await client(NEW_KEY).chat.completions.create({ model: "mock-gpt", messages: [{ role: "user", content: "hi" }], max_tokens: 3 });
    assert.equal(completion.choices.length, 1, "the key added by the same file works, on the running listener");
  });
});
