import assert from "node:assert/strict";
import { join } from "node:path";
import { describe, test } from "node:test";
import type { BudgetCharge } from "../../src/budgets/budget-charge.ts";
import { openJournalLog, type JournalLog } from "../../src/journal/admission-log/journal-log.ts";
import { admissionLogDir } from "../../src/journal/admission-log/log-segments.ts";
import { createLogLedger } from "../../src/journal/log-ledger.ts";
import type { RiderTimers } from "../../src/journal/log-riders.ts";
import { replayAdmissionLog } from "../../src/journal/admission-log/log-replay.ts";
import { createStore } from "../../src/storage/store-open.ts";
import { budgetCharge, journalStart as start, okCompletion } from "../support/journal-fixtures.ts";
import { openSqlite, tempDir } from "../support/store-targets.ts";

const charge = (amount: number): BudgetCharge => budgetCharge(amount, { limit: 10 });
const done = okCompletion({ cost: 0.1 });

/** The real log, telling when a write carrying `marker` has returned (durable at the log's durability). */
function observed(log: JournalLog, marker: string): { log: JournalLog; written: Promise<void> } {
  let resolve = (): void => undefined;
  const written = new Promise<void>((r) => (resolve = r));
  const carries = (bytes: Uint8Array): boolean => new TextDecoder().decode(bytes).includes(marker);
  return {
    written,
    log: {
      ...log,
      get segment() {
        return log.segment;
      },
      write: async (bytes) => {
        const hit = carries(bytes);
        const segment = await log.write(bytes);
        if (hit) resolve();
        return segment;
      },
      appendSync: (bytes) => {
        const segment = log.appendSync(bytes);
        if (carries(bytes)) resolve();
        return segment;
      },
      appendNow: log.appendNow && ((bytes) => {
        const segment = log.appendNow!(bytes);
        if (carries(bytes)) resolve();
        return segment;
      }),
    },
  };
}

describe("log ledger: a completion reaches the log within finishWriteMs even when no admission comes", () => {
  for (const durability of ["fsync", "process"] as const) test(`${durability}: an answered call is ok with its real cost after a crash`, async () => {
    const path = join(tempDir(), "renio.db");
    const store = await createStore({ type: "sqlite", path }, { durability, openSqlite, instanceId: "relay-1" });
    const dir = admissionLogDir(path);
    const call = start();
    const { log, written } = observed(openJournalLog(dir, durability), `"complete"`);
    // Nothing is applied to the database before the "crash": only the log holds the call.
    const ledger = createLogLedger(store, log, await store.budgetUsage(), { instanceId: "relay-1", applyDelayMs: 60_000 });
    assert.ok((await ledger.admit(call, [charge(1)])).admitted);
    const completedAt = performance.now();
    ledger.complete(call.id, done, [charge(1)], 0.1);
    await written;
    const tookMs = performance.now() - completedAt;
    assert.ok(tookMs < 250, `written ${tookMs.toFixed(1)} ms after complete (bound 10 ms plus scheduling)`);
    // Crash: the ledger is never closed; the next process replays the log.
    const next = await createStore({ type: "sqlite", path }, { durability, openSqlite, instanceId: "relay-2" });
    await replayAdmissionLog(next, dir);
    await next.recover(Date.now());
    const entry = (await next.listJournal({ limit: 10 })).entries.find((e) => e.id === call.id);
    assert.equal(entry?.outcome, "ok");
    assert.equal(entry?.cost, 0.1);
    await next.close();
  });
});

/** The real log, counting its writes. */
function counted(log: JournalLog): { log: JournalLog; writes: () => number } {
  let writes = 0;
  return {
    writes: () => writes,
    log: {
      ...log,
      get segment() {
        return log.segment;
      },
      write: (bytes) => (writes++, log.write(bytes)),
      appendSync: (bytes) => (writes++, log.appendSync(bytes)),
      appendNow: log.appendNow && ((bytes) => (writes++, log.appendNow!(bytes))),
    },
  };
}

/** Timers on a clock the test moves: due ones run, in order, when it advances. */
function manualTimers(): RiderTimers & { advance(ms: number): void } {
  let now = 0;
  const pending: Array<{ at: number; run: () => void; live: boolean }> = [];
  return {
    set(run, ms) {
      const timer = { at: now + ms, run, live: true };
      pending.push(timer);
      return timer;
    },
    clear(timer) {
      (timer as { live: boolean }).live = false;
    },
    advance(ms) {
      now += ms;
      for (const timer of pending.filter((t) => t.live && t.at <= now).sort((a, b) => a.at - b.at)) {
        timer.live = false;
        timer.run();
      }
    },
  };
}

describe("log ledger: completions ride the next admission's write, their own write counted from the oldest not yet written", () => {
  for (const durability of ["fsync", "process"] as const) test(`${durability}: calls a little longer than finishWriteMs cost one write each, and a completion left alone is still written within it`, async () => {
    const path = join(tempDir(), "renio.db");
    const store = await createStore({ type: "sqlite", path }, { durability, openSqlite, instanceId: "relay-1" });
    const dir = admissionLogDir(path);
    const { log, writes } = counted(openJournalLog(dir, durability));
    const timers = manualTimers();
    const ledger = createLogLedger(store, log, await store.budgetUsage(), { instanceId: "relay-1", finishWriteMs: 10, timers, applyDelayMs: 60_000 });
    // A write of completions alone goes through the group commit, which writes at the end of the event loop's turn.
    const idle = () => new Promise<void>((resolve) => setImmediate(resolve));
    // One call at a time, each answered 9 ms after the previous one's completion was written with it: A, then B, then C.
    const [a, b, c] = [start(), start(), start()];
    await ledger.admit(a, [charge(1)]);
    ledger.complete(a.id, done, [charge(1)], 0.1);
    timers.advance(1);
    await ledger.admit(b, [charge(1)]); // carries A's completion
    timers.advance(8);
    ledger.complete(b.id, done, [charge(1)], 0.1);
    timers.advance(3); // 12 ms after A's completion, 3 after B's
    await idle();
    await ledger.admit(c, [charge(1)]); // carries B's completion
    await idle();
    assert.equal(writes(), 3, "one write per call: no completion was written on its own");
    // A completion no admission comes for is written on its own, finishWriteMs after it was queued.
    ledger.complete(c.id, done, [charge(1)], 0.1);
    timers.advance(9);
    await idle();
    assert.equal(writes(), 3, "not before finishWriteMs");
    timers.advance(1);
    await idle();
    assert.equal(writes(), 4, "C's completion on its own, at finishWriteMs");
    // Crash (never closed): the log holds every call, finished.
    const next = await createStore({ type: "sqlite", path }, { durability, openSqlite, instanceId: "relay-2" });
    await replayAdmissionLog(next, dir);
    const entries = (await next.listJournal({ limit: 10 })).entries;
    assert.deepEqual([a, b, c].map((call) => entries.find((e) => e.id === call.id)?.outcome), ["ok", "ok", "ok"]);
    await next.close();
  });
});
