import assert from "node:assert/strict";
import { join } from "node:path";
import { describe, test } from "node:test";
import type { BudgetCharge } from "../src/budget/budget-charge.ts";
import { openJournalLog, type JournalLog } from "../src/journal/journal-log.ts";
import { admissionLogDir } from "../src/journal/log-segments.ts";
import { createLogLedger } from "../src/journal/log-ledger.ts";
import { replayAdmissionLog } from "../src/journal/log-replay.ts";
import { createStore } from "../src/storage/store-open.ts";
import { budgetCharge, journalStart as start, okCompletion } from "./support/journal-fixtures.ts";
import { openSqlite, tempDir } from "./support/store-targets.ts";

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
