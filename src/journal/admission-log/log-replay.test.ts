import assert from "node:assert/strict";
import { mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, describe, test } from "node:test";
import { currentRuntime } from "../../runtime/current-runtime.ts";
import { encodeLogRecord, type LogRecord } from "./admission-log-record.ts";
import { StoreOpenError } from "../../shared/store-open-error.ts";
import { createStore } from "../../storage/store-open.ts";
import type { Store } from "../../storage/store.ts";
import { replayAdmissionLog } from "./log-replay.ts";
import { admissionLogDir, segmentPath } from "./log-segments.ts";

const { openSqlite } = await currentRuntime();
const dirs: string[] = [];
after(() => dirs.forEach((dir) => rmSync(dir, { recursive: true, force: true })));

/** A fresh SQLite store and its (empty) admission log directory. */
async function fresh(): Promise<{ store: Store; logDir: string }> {
  const dir = mkdtempSync(join(tmpdir(), "renio-replay-"));
  dirs.push(dir);
  const path = join(dir, "renio.db");
  const logDir = admissionLogDir(path);
  mkdirSync(logDir);
  return { store: await createStore({ type: "sqlite", path }, { durability: "process", openSqlite, instanceId: "relay-next" }), logDir };
}

const admission = (id: string): LogRecord => ({
  admit: {
    start: { id, receivedAt: 1_700_000_000_000, requestId: null, keyId: "k1", project: "p1", route: "/v1/chat/completions", model: "gpt-x", provider: "mock", upstreamModel: "gpt-x", stream: false, requestBytes: 100, clientAddress: "127.0.0.1", requestBody: null },
    charges: [{ budgetId: "total", period: "total", limit: 10, mode: "strict", amount: 0.5 }],
    admitted: true,
    decidedAt: 1_700_000_000_001,
    instanceId: "relay-dead",
  },
});

/** Replays `segment` (the text of segment 1); asserts it is refused naming the file and line, with `problem`, and that nothing was applied or deleted. */
async function assertRefused(segment: string, line: number, problem: RegExp): Promise<void> {
  const { store, logDir } = await fresh();
  writeFileSync(segmentPath(logDir, 1), segment);
  await assert.rejects(replayAdmissionLog(store, logDir), (error: unknown) => {
    assert.ok(error instanceof StoreOpenError, String(error));
    assert.ok(error.message.startsWith(`cannot replay the admission log: ${segmentPath(logDir, 1)} line ${line}: `), error.message);
    assert.match(error.message, problem);
    return true;
  });
  assert.deepEqual((await store.listJournal({ limit: 10 })).entries, [], "nothing applied");
  assert.deepEqual(readdirSync(logDir), ["00000001.seg"], "the log is kept");
  await store.close();
}

describe("admission log replay", () => {
  test("a record of a newer format version is refused at startup, naming the segment file and line", async () => {
    const newer = encodeLogRecord(admission("e2")).replace('{"v":1,', '{"v":3,');
    await assertRefused(encodeLogRecord(admission("e1")) + newer, 2, /record format version 3 is newer than this Renio reads \(2\); upgrade Renio/);
  });

  test("an unknown format version is refused", async () => {
    await assertRefused(encodeLogRecord(admission("e1")).replace('{"v":1,', '{"v":"1.0",'), 1, /unknown record format version "1\.0"/);
  });

  test("a corrupt record is refused, saying what is wrong", async () => {
    const wrong = encodeLogRecord(admission("e1")).replace('"receivedAt":1700000000000', '"receivedAt":"yesterday"');
    await assertRefused(wrong, 1, /not a valid admission record: admit\.start\.receivedAt: .*expected number/);
    await assertRefused(`${encodeLogRecord(admission("e1"))}{"v":1,"admit":{"sta\n${encodeLogRecord(admission("e2"))}`, 2, /not JSON/);
    await assertRefused(`{"v":1,"other":{}}\n`, 1, /neither an admission nor a finish record/);
  });

  test("an admission followed by its unsent record (its write failed, yet its bytes landed) replays as refused and not sent: nothing reserved, nothing for recovery to interrupt", async () => {
    const { store, logDir } = await fresh();
    const { start } = (admission("e1") as Extract<LogRecord, { admit: unknown }>).admit;
    const unsent: LogRecord = { finish: { kind: "unsent", start, finishedAt: 1_700_000_000_002, fence: false } };
    writeFileSync(segmentPath(logDir, 1), encodeLogRecord(admission("e1")) + encodeLogRecord(admission("e2")));
    writeFileSync(segmentPath(logDir, 2), encodeLogRecord(unsent));
    assert.equal(await replayAdmissionLog(store, logDir), 3);
    assert.equal(await store.recover(1_700_000_000_003), 1, "only the call that was sent is interrupted");
    const byId = new Map((await store.listJournal({ limit: 10 })).entries.map((e) => [e.id, e]));
    assert.deepEqual([byId.get("e1")?.outcome, byId.get("e1")?.errorCode, byId.get("e1")?.cost, byId.get("e1")?.reconcile], ["refused", "store_unavailable", 0, null]);
    assert.deepEqual([byId.get("e2")?.outcome, byId.get("e2")?.reconcile], ["interrupted", "pending"]);
    assert.deepEqual((await store.budgetUsage()).map((u) => u.reserved), [0.5], "e1's reservation is released; e2's stays for reconciliation");
    await store.close();
  });

  test("records written before the format version (no `v`) replay as version 1; a torn last line is not a record", async () => {
    const { store, logDir } = await fresh();
    const previousBuild = (record: LogRecord) => `${JSON.stringify(record)}\n`;
    writeFileSync(segmentPath(logDir, 1), `${previousBuild(admission("e1"))}\n${previousBuild(admission("e2"))}{"admit":{"start":`);
    assert.equal(await replayAdmissionLog(store, logDir), 2);
    const entries = (await store.listJournal({ limit: 10 })).entries;
    assert.deepEqual(entries.map((e) => [e.id, e.outcome]).sort(), [["e1", "started"], ["e2", "started"]]);
    assert.deepEqual((await store.budgetUsage()).map((u) => u.reserved), [1]);
    assert.deepEqual(readdirSync(logDir), [], "replayed segments are deleted");
    await store.close();
  });
});
