import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import pg from "pg";
import { createHttpHandler } from "../../../src/http/app.ts";
import { budgetCharge as charge, journalStart as start, okCompletion } from "../../support/journal-fixtures.ts";
import { openTestLedger } from "../../support/ledgers.ts";
import { admin, ADMIN_TOKEN } from "../../support/admin-api.ts";
import { Scrape } from "../../support/prom-scrape.ts";
import { startMockServer, startRelay, type MockServer } from "../../support/relay-harness.ts";
import { chatBody, post } from "../../support/relay-calls.ts";
import { eventually } from "../../support/sse-bytes.ts";
import { backends, tempDir } from "../../support/store-targets.ts";

/**
 * A journal that falls behind is seen: /readyz answers 503 (`"journal":"behind"`) and
 * `renio_journal_behind` is 1 while the oldest record not yet written to the database has
 * waited longer than `journal.maxLagMs`, though the store still answers its pings; both clear
 * once it catches up.
 */

const MAX_LAG_MS = 300;

async function readyz(url: string): Promise<{ status: number; body: Record<string, unknown> }> {
  const response = await fetch(`${url}/readyz`);
  return { status: response.status, body: (await response.json()) as Record<string, unknown> };
}

describe("/readyz and renio_journal_behind when the journal falls behind", () => {
  let mock: MockServer;
  before(async () => {
    mock = await startMockServer();
  });
  after(async () => {
    await mock.stop();
  });

  it("PostgreSQL: completions held up behind a lock (pings still answered) make the relay unready until they are written", async () => {
    const { storage } = await backends.find((backend) => backend.name === "postgres")!.target();
    if (storage.type !== "postgres") throw new Error("no PostgreSQL URL");
    const relay = await startRelay(mock.url, {
      server: { host: "127.0.0.1", port: 0, shutdownGraceMs: 2000, adminToken: ADMIN_TOKEN },
      storage,
      budgets: [{ id: "all", scope: "total", period: "total", limit: 10 }],
      journal: { maxLagMs: MAX_LAG_MS },
    });
    const locker = new pg.Client({ connectionString: storage.url });
    await locker.connect();
    const behind = async () => new Scrape(await (await fetch(`${relay.url}/metrics`, { headers: { authorization: `Bearer ${ADMIN_TOKEN}` } })).text()).sum("renio_journal_behind");
    try {
      assert.equal((await post(relay.url, "/v1/chat/completions", chatBody())).status, 200);
      // Ready once the first completion is written (on a busy machine that may take longer than the bound).
      assert.ok(await eventually(async () => (await readyz(relay.url)).status === 200, 10_000), "ready before the lock");
      // The first completion written (an admin read writes what is queued), so none holds a budget row when the lock is taken.
      assert.equal((await admin(relay.url, "GET", "/journal")).status, 200);
      // Every completion writes the hourly rollup: locked, they wait; admissions and pings do not touch it.
      await locker.query("begin");
      await locker.query("lock table usage_hour in exclusive mode");
      const call = await post(relay.url, "/v1/chat/completions", chatBody());
      assert.equal(call.status, 200);
      await call.arrayBuffer();
      let answer = await readyz(relay.url);
      assert.ok(await eventually(async () => (answer = await readyz(relay.url)).status === 503, 10_000), JSON.stringify(answer));
      assert.deepEqual([answer.body["status"], answer.body["storage"], answer.body["journal"]], ["unready", "ok", "behind"]);
      assert.ok(Number(answer.body["journal_lag_ms"]) > MAX_LAG_MS);
      assert.equal(await behind(), 1);
      await locker.query("rollback");
      assert.ok(await eventually(async () => (await readyz(relay.url)).status === 200, 10_000), "ready again once the journal caught up");
      assert.equal(await behind(), 0);
    } finally {
      await locker.end();
      await relay.stop();
    }
  });

  it("SQLite (the log ledger): records waiting past the bound make /readyz 503 until they are applied", async () => {
    const t = await openTestLedger("log-fsync", tempDir(), { untilFlush: true });
    const handler = createHttpHandler({ ledger: t.ledger, accepting: () => true, journalMaxLagMs: () => MAX_LAG_MS });
    const readyzHere = async () => {
      const response = await handler(new Request("http://relay/readyz"), { remoteAddress: "127.0.0.1" });
      return { status: response.status, body: (await response.json()) as Record<string, unknown> };
    };
    const call = start();
    assert.ok((await t.ledger.admit(call, [charge(0.1)])).admitted);
    t.ledger.complete(call.id, okCompletion({ cost: 0.1 }), [charge(0.1)], 0.1);
    assert.equal((await readyzHere()).status, 200);
    let answer = await readyzHere();
    assert.ok(await eventually(async () => (answer = await readyzHere()).status === 503, 5_000), JSON.stringify(answer));
    assert.equal(answer.body["journal"], "behind");
    await t.ledger.flush();
    assert.equal((await readyzHere()).status, 200);
    await t.close();
  });
});
