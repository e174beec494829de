import assert from "node:assert/strict";
import { join } from "node:path";
import { describe, test } from "node:test";
import type { BudgetCharge } from "../../src/budgets/budget-charge.ts";
import { openJournalLog, type JournalLog } from "../../src/journal/admission-log/journal-log.ts";
import { admissionLogDir, readJournalLog } from "../../src/journal/admission-log/log-segments.ts";
import { createLogLedger } from "../../src/journal/log-ledger.ts";
import { replayAdmissionLog } from "../../src/journal/admission-log/log-replay.ts";
import { createStore } from "../../src/storage/store-open.ts";
import type { Store } from "../../src/storage/store.ts";
import { budgetCharge, journalStart as start, okCompletion } from "../support/journal-fixtures.ts";
import { openSqlite, tempDir } from "../support/store-targets.ts";
import type { Durability } from "../../src/journal/journal-store.ts";

const charge = (amount: number, limit = 1): BudgetCharge => budgetCharge(amount, { limit });
const done = okCompletion({ cost: 0.1 });

async function openLedger(path: string, instanceId: string, applyDelayMs = 50, durability: Durability = "fsync", wrap = (log: JournalLog): JournalLog => log) {
  const store = await createStore({ type: "sqlite", path }, { durability, openSqlite, instanceId });
  const dir = admissionLogDir(path);
  await replayAdmissionLog(store, dir);
  const ledger = createLogLedger(store, wrap(openJournalLog(dir, durability)), await store.budgetUsage(), { instanceId, applyDelayMs, syncWriteSlowMs: 2, syncWriteCoolOffMs: 60_000 });
  return { store, dir, ledger };
}

/**
 * The real log, on a disk that is slow for writes on the calling thread (each takes `slowMs`
 * longer), counting the writes made on a pool thread instead.
 */
function slowDisk(slowMs: number) {
  const counts = { here: 0, pool: 0 };
  const wrap = (log: JournalLog): JournalLog => ({
    get segment() {
      return log.segment;
    },
    appendNow: log.appendNow,
    appendSync(bytes) {
      counts.here++;
      const until = performance.now() + slowMs;
      while (performance.now() < until); // the disk is slow: the thread waits this long for the write
      return log.appendSync(bytes);
    },
    write(bytes) {
      counts.pool++;
      return log.write(bytes);
    },
    release: (segment) => log.release(segment),
    close: (applied) => log.close(applied),
    writeMethod: log.writeMethod,
  });
  return { counts, wrap };
}

async function entries(store: Store) {
  return new Map((await store.listJournal({ limit: 100 })).entries.map((e) => [e.id, e]));
}

describe("log ledger (SQLite owned by one relay)", () => {
  for (const durability of ["fsync", "process"] as const) test(`${durability}: decides budgets in memory before anything is applied, and the database agrees once it is`, async () => {
    const { store, ledger } = await openLedger(join(tempDir(), "renio.db"), "relay-1", 60_000, durability);
    const calls = Array.from({ length: 6 }, start);
    const admissions = await Promise.all(calls.map((s) => ledger.admit(s, [charge(0.3)])));
    assert.deepEqual(admissions.map((a) => a.admitted), [true, true, true, false, false, false], "0.3 × 3 fits a limit of 1, a fourth does not");
    assert.equal((await store.listJournal({ limit: 10 })).entries.length, 0, "nothing applied yet: the log holds it");
    assert.ok(!(await ledger.admit(start(), [charge(0.35)])).admitted, "0.9 reserved: 0.35 does not fit");
    ledger.complete(calls[0]!.id, done, [charge(0.3)], 0.1);
    assert.ok((await ledger.admit(start(), [charge(0.25)])).admitted, "settling 0.3 → 0.1 frees room at once");
    await ledger.flush();
    const byId = await entries(store);
    assert.equal(byId.size, 8);
    assert.equal(byId.get(calls[0]!.id)?.outcome, "ok");
    assert.equal(byId.get(calls[1]!.id)?.outcome, "started");
    assert.equal(byId.get(calls[3]!.id)?.outcome, "refused");
    const [usage] = await store.budgetUsage();
    assert.ok(Math.abs(usage!.spent - 0.1) < 1e-9 && Math.abs(usage!.reserved - 0.85) < 1e-9, `stored ${JSON.stringify(usage)}`);
    await ledger.close();
  });

  test("after a crash, the next start replays the log: every admitted call is there, completions settled once", async () => {
    const path = join(tempDir(), "renio.db");
    const crashed = await openLedger(path, "relay-dead", 60_000);
    const [a, b] = [start(), start()];
    await crashed.ledger.admit(a, [charge(0.4)]);
    await crashed.ledger.admit(b, [charge(0.4)]);
    crashed.ledger.complete(a.id, done, [charge(0.4)], 0.2);
    await crashed.ledger.admit(start(), []); // carries a's completion into the log
    assert.equal(readJournalLog(crashed.dir).lines.length, 4);
    await crashed.store.close(); // the process dies: nothing was applied

    const next = await openLedger(path, "relay-next");
    assert.equal(await next.store.recover(Date.now()), 2, "b (and the last call) never finished: interrupted");
    const byId = await entries(next.store);
    assert.equal(byId.get(a.id)?.outcome, "ok");
    assert.equal(byId.get(b.id)?.outcome, "interrupted");
    assert.equal(byId.get(b.id)?.reconcile, "pending");
    const [usage] = await next.store.budgetUsage();
    assert.ok(Math.abs(usage!.spent - 0.2) < 1e-9 && Math.abs(usage!.reserved - 0.4) < 1e-9, `stored ${JSON.stringify(usage)}`);
    assert.deepEqual(readJournalLog(next.dir).lines, [], "replayed segments are gone");
    assert.ok(!(await next.ledger.admit(start(), [charge(0.5)])).admitted, "b's reservation still counts until reconciled");
    await next.ledger.close();
    await crashed.ledger.close().catch(() => undefined);
  });

  test("fsync: a lone call's admission is on disk when admit returns, written on its own; overlapping calls share one write, and a lone call after them is written alone again", async () => {
    const { dir, ledger } = await openLedger(join(tempDir(), "renio.db"), "relay-1", 60_000);
    const sizes = ledger.stats().admissionGroupSizes!;
    const ids = (): string[] => readJournalLog(dir).lines.map((line) => (JSON.parse(line) as { admit?: { start: { id: string } } }).admit?.start.id ?? "");
    const lone = start();
    const admitted = ledger.admit(lone, [charge(0.1)]);
    assert.deepEqual(ids(), [lone.id], "written on the calling thread, before admit even yields");
    assert.ok((await admitted).admitted);
    assert.deepEqual([sizes.count, sizes.sum], [1, 1]);
    const overlapping = [start(), start(), start()];
    const shared = overlapping.map((s) => ledger.admit(s, [charge(0.1)]));
    assert.deepEqual(ids(), [lone.id], "a call is open: they wait for a group-commit write");
    await Promise.all(shared);
    assert.deepEqual(ids(), [lone.id, ...overlapping.map((s) => s.id)]);
    assert.deepEqual([sizes.count, sizes.sum], [2, 4], "the three overlapping admissions went into one write");
    for (const s of [lone, ...overlapping]) ledger.complete(s.id, done, [charge(0.1)], 0.05);
    const after = start();
    const again = ledger.admit(after, [charge(0.1)]);
    assert.equal(ids().at(-1), after.id);
    assert.ok((await again).admitted);
    assert.deepEqual([sizes.count, sizes.sum], [3, 5], "alone again: one record (its riders with it)");
    await ledger.close();
  });

  test("fsync: a write on the calling thread slower than syncWriteSlowMs sends the writes after it to a pool thread (the event loop is not stalled by a slow disk)", async () => {
    const disk = slowDisk(20);
    const { dir, ledger } = await openLedger(join(tempDir(), "renio.db"), "relay-1", 60_000, "fsync", disk.wrap);
    const ids = (): string[] => readJournalLog(dir).lines.flatMap((line) => (JSON.parse(line) as { admit?: { start: { id: string } } }).admit?.start.id ?? []);
    const lone = start();
    assert.ok((await ledger.admit(lone, [charge(0.1)])).admitted);
    assert.deepEqual(disk.counts, { here: 1, pool: 0 }, "the first write is tried on the calling thread: it takes 20 ms, which lifts the average over the 2 ms limit");
    const overlapping = [start(), start()];
    assert.deepEqual((await Promise.all(overlapping.map((s) => ledger.admit(s, [charge(0.1)])))).map((a) => a.admitted), [true, true]);
    for (const s of [lone, ...overlapping]) ledger.complete(s.id, done, [charge(0.1)], 0.05);
    const alone = start();
    assert.ok((await ledger.admit(alone, [charge(0.1)])).admitted);
    assert.deepEqual(disk.counts, { here: 1, pool: 2 }, "during the cool-off, groups and lone calls alike are written on a pool thread");
    assert.deepEqual(ids(), [lone.id, ...overlapping.map((s) => s.id), alone.id], "every admission durable, in order");
    await ledger.close();
  });
});
