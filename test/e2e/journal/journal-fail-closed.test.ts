import assert from "node:assert/strict";
import { existsSync, readdirSync } from "node:fs";
import { join } from "node:path";
import { after, before, describe, test } from "node:test";
import { admissionLogDir } from "../../../src/journal/admission-log/log-segments.ts";
import { canFreeze, frozen } from "../../support/frozen-files.ts";
import { startPostgresCluster } from "../../support/postgres.ts";
import { startMockServer, startRelay, type MockServer, type RelayUnderTest } from "../../support/relay-harness.ts";
import { chatBody, errorOf, mockStats, post } from "../../support/relay-calls.ts";

let mock: MockServer;

before(async () => {
  mock = await startMockServer();
});

after(async () => {
  await mock.stop();
});

async function readyz(url: string): Promise<number> {
  const response = await fetch(`${url}/readyz`);
  await response.arrayBuffer();
  return response.status;
}

/** While the store is down: /readyz 503, 503 store_unavailable, nothing upstream. */
async function assertFailsClosed(relay: RelayUnderTest): Promise<void> {
  assert.equal(await readyz(relay.url), 503);
  const before = (await mockStats(mock.url)).received;
  for (const body of [chatBody(), chatBody({ stream: true })]) {
    const response = await post(relay.url, "/v1/chat/completions", body);
    assert.equal(response.status, 503);
    const error = await errorOf(response);
    assert.equal(error.code, "store_unavailable");
    assert.match(error.message, /not sent/);
  }
  assert.equal((await mockStats(mock.url)).received, before, "nothing reached the provider");
}

async function assertServes(relay: RelayUnderTest): Promise<void> {
  assert.equal(await readyz(relay.url), 200);
  const response = await post(relay.url, "/v1/chat/completions", chatBody());
  assert.equal(response.status, 200);
  await response.arrayBuffer();
}

describe("fail closed when the journal cannot be committed", () => {
  const needs = { skip: !canFreeze && "needs root and chattr" };
  const sqliteRelay = () => startRelay(mock.url, { budgets: [{ id: "all", scope: "total", period: "total", limit: 10 }] });

  test("sqlite: admission log made unwritable under the running relay → unready, 503 store_unavailable; writable again → ready", needs, async () => {
    const relay = await sqliteRelay();
    const logDir = admissionLogDir(join(relay.dir, "renio.db"));
    try {
      await assertServes(relay);
      const segments = readdirSync(logDir).map((name) => join(logDir, name));
      assert.ok(segments.length > 0, "the log has a segment");
      // The directory too: a failed write moves the log to a fresh segment, which it cannot create.
      await frozen([logDir, ...segments], () => assertFailsClosed(relay));
      await assertServes(relay);
    } finally {
      await relay.stop();
    }
  });

  test("sqlite: database WAL made immutable under the running relay → unready, 503 store_unavailable; writable again → ready", needs, async () => {
    const relay = await sqliteRelay();
    const wal = join(relay.dir, "renio.db-wal");
    try {
      await assertServes(relay);
      assert.ok(existsSync(wal), "WAL mode");
      await frozen([wal], () => assertFailsClosed(relay));
      await assertServes(relay);
    } finally {
      await relay.stop();
    }
  });

  test("postgres: server stopped under the running relay → 503 store_unavailable, unready; started again → ready", async () => {
    const cluster = startPostgresCluster();
    const relay = await startRelay(mock.url, {
      storage: { type: "postgres", url: cluster.url, poolSize: 4 },
      budgets: [{ id: "all", scope: "total", period: "total", limit: 10 }],
    });
    try {
      await assertServes(relay);
      cluster.pause();
      try {
        await assertFailsClosed(relay);
      } finally {
        cluster.resume();
      }
      await assertServes(relay);
    } finally {
      await relay.stop();
      cluster.destroy();
    }
  });
});
