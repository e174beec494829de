import assert from "node:assert/strict";
import { join } from "node:path";
import { after, before, test } from "node:test";
import type { StorageConfig } from "../../src/config/config-schema.ts";
import { startMockServer, type MockServer } from "../support/relay-harness.ts";
import { allEntries, chatBody, mockStats, openStore, post } from "../support/relay-calls.ts";
import { bounded, relayConfig, runRenio, scratchDir, startRelayProcess, writeConfig } from "../support/relay-process.ts";

const CALLS = 64;
let mock: MockServer;

before(async () => {
  mock = await startMockServer({ chunkIntervalMs: 50, chunks: 40 });
});

after(async () => {
  await mock.stop();
});

test("SIGKILL with 64 calls in flight (half streaming, mid-stream): after restart every forwarded call has an entry, none unfinished, reservations charged until reconciled", async () => {
  const dir = scratchDir();
  const storage: StorageConfig = { type: "sqlite", path: join(dir, "renio.db") };
  const configPath = writeConfig(dir, relayConfig(mock.url, storage, { budgets: [{ id: "all", scope: "total", period: "total", limit: 1000 }] }));
  const relay = await startRelayProcess(configPath);
  const before = (await mockStats(mock.url)).received;

  // Half stream slowly (40 chunks, 50 ms apart); half are JSON calls the mock holds for 20 s.
  const firstChunks: Array<Promise<void>> = [];
  const calls = Array.from({ length: CALLS }, (_, i) => {
    const streaming = i % 2 === 0;
    const response = post(relay.url, "/v1/chat/completions", chatBody({ stream: streaming }), streaming ? {} : { "x-mock-fault": "delay=20000" });
    if (streaming) {
      firstChunks.push(
        response.then(async (r) => {
          assert.equal(r.status, 200);
          const first = await r.body!.getReader().read();
          assert.ok(!first.done && first.value.byteLength > 0, "a first chunk arrived");
        }),
      );
    }
    return response.then(
      (r) => r.body?.cancel().catch(() => undefined),
      () => undefined,
    );
  });
  await bounded(Promise.all(firstChunks), 10_000, () => "streams did not start");
  const deadline = Date.now() + 10_000;
  while ((await mockStats(mock.url)).received - before < CALLS) assert.ok(Date.now() < deadline, "the mock received every call");

  const killed = await relay.stop("SIGKILL");
  assert.equal(killed.signal, "SIGKILL");
  await Promise.all(calls);
  const forwarded = (await mockStats(mock.url)).requestIds.slice(-CALLS);
  assert.equal(new Set(forwarded).size, CALLS);

  const restarted = await startRelayProcess(configPath);
  const stopped = await restarted.stop("SIGTERM");
  assert.equal(stopped.code, 0, restarted.output());
  assert.match(restarted.output(), new RegExp(`recovered: ${CALLS} entries`));

  const store = await openStore(storage);
  try {
    const byId = new Map((await allEntries(store)).map((entry) => [entry.id, entry]));
    for (const id of forwarded) {
      const entry = byId.get(id);
      assert.ok(entry, `the forwarded call ${id} has an entry`);
      assert.equal(entry.outcome, "interrupted");
      assert.ok(entry.finishedAt !== null, "marked with the detection time");
      assert.equal(entry.reconcile, "pending");
      assert.ok(entry.reservedCost !== null && entry.reservedCost > 0);
    }
    assert.equal([...byId.values()].filter((e) => e.outcome === "started").length, 0, "none left unfinished");
    assert.equal(forwarded.filter((id) => byId.get(id)?.stream).length, CALLS / 2);
    const reservedTotal = forwarded.reduce((sum, id) => sum + byId.get(id)!.reservedCost!, 0);
    const [usage] = await store.budgetUsage([{ budgetId: "all", period: "total" }]);
    assert.ok(Math.abs(usage!.reserved - reservedTotal) < 1e-9, `reservations stay charged: ${usage!.reserved} vs ${reservedTotal}`);
    assert.equal(usage!.spent, 0);
  } finally {
    await store.close();
  }

  const reconciled = await runRenio(["budget", "reconcile", "--json", "--config", configPath]);
  assert.equal(reconciled.code, 0, reconciled.stderr);
  const result = JSON.parse(reconciled.stdout) as { entries: number; charged: number; released: number };
  assert.equal(result.entries, CALLS);
  assert.ok(result.charged > 0);

  const status = await runRenio(["budget", "status", "--json", "--config", configPath]);
  const [row] = JSON.parse(status.stdout) as Array<{ budgetId: string; spent: number; reserved: number }>;
  assert.equal(row!.reserved, 0, "nothing left reserved");
  assert.ok(Math.abs(row!.spent - result.charged) < 1e-9, "settled at the reservation");
  const again = await runRenio(["budget", "reconcile", "--json", "--config", configPath]);
  assert.equal((JSON.parse(again.stdout) as { entries: number }).entries, 0, "settled only once");
});

test("a second relay on the same SQLite file refuses to start (budgets are decided by the one owning it); once the first is gone, it starts", async () => {
  const dir = scratchDir();
  const storage: StorageConfig = { type: "sqlite", path: join(dir, "renio.db") };
  const configPath = writeConfig(dir, relayConfig(mock.url, storage));
  const first = await startRelayProcess(configPath);
  try {
    const second = await runRenio(["serve", "--config", configPath]);
    assert.notEqual(second.code, 0);
    assert.match(second.stderr, /renio\.db is in use by another Renio relay; one relay owns an SQLite file/);
    assert.ok(!second.stderr.includes("    at "), "no stack trace");
  } finally {
    await first.stop("SIGKILL");
  }
  // The owner died without releasing its claim: the operating system dropped its lock, so the
  // next relay takes over (and replays its log).
  const next = await startRelayProcess(configPath);
  const response = await post(next.url, "/v1/chat/completions", chatBody());
  assert.equal(response.status, 200);
  await response.arrayBuffer();
  assert.equal((await next.stop()).code, 0);
});
