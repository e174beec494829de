import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { existsSync } from "node:fs";
import { join } from "node:path";
import process from "node:process";
import { after, before, describe, test } from "node:test";
import { startPostgresCluster } from "./support/postgres.ts";
import { startMockServer, startRelay, type MockServer, type RelayUnderTest } from "./support/relay-harness.ts";
import { chatBody, errorOf, mockStats, post } from "./support/relay-calls.ts";

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

/** While the store is down: 503 store_unavailable, nothing upstream, /readyz 503. */
async function assertFailsClosed(relay: RelayUnderTest): Promise<void> {
  const before = (await mockStats(mock.url)).received;
  for (const body of [chatBody(), chatBody({ stream: true })]) {
    const response = await post(relay.url, "/v1/chat/completions", body);
    assert.equal(response.status, 503);
    const error = await errorOf(response);
    assert.equal(error.code, "store_unavailable");
    assert.match(error.message, /not sent/);
  }
  assert.equal(await readyz(relay.url), 503);
  assert.equal((await mockStats(mock.url)).received, before, "nothing reached the provider");
}

async function assertServes(relay: RelayUnderTest): Promise<void> {
  assert.equal(await readyz(relay.url), 200);
  const response = await post(relay.url, "/v1/chat/completions", chatBody());
  assert.equal(response.status, 200);
  await response.arrayBuffer();
}

// Root ignores permission bits, and an open file descriptor keeps its write access anyway;
// the immutable attribute on the WAL makes every commit of the running relay fail (EPERM → SQLITE_IOERR).
const canFreeze = process.getuid?.() === 0 && existsSync("/usr/bin/chattr");

describe("fail closed when the journal cannot be committed", () => {
  test("sqlite: WAL file made immutable under the running relay → 503 store_unavailable, unready; writable again → ready", { skip: !canFreeze && "needs root and chattr" }, async () => {
    const relay = await startRelay(mock.url, { budgets: [{ id: "all", scope: "total", period: "total", limit: 10 }] });
    const wal = join(relay.dir, "renio.db-wal");
    try {
      await assertServes(relay);
      assert.ok(existsSync(wal), "WAL mode");
      execFileSync("chattr", ["+i", wal]);
      try {
        await assertFailsClosed(relay);
      } finally {
        execFileSync("chattr", ["-i", wal]);
      }
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
