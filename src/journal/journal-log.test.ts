import assert from "node:assert/strict";
import { existsSync, mkdtempSync, readdirSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, describe, test } from "node:test";
import { openJournalLog } from "./journal-log.ts";
import { admissionLogDir, readJournalLog, removeSegments } from "./log-segments.ts";

const dirs: string[] = [];
after(() => dirs.forEach((dir) => rmSync(dir, { recursive: true, force: true })));

function logDir(): string {
  const dir = mkdtempSync(join(tmpdir(), "renio-log-"));
  dirs.push(dir);
  return admissionLogDir(join(dir, "renio.db"));
}

const bytes = (text: string) => new TextEncoder().encode(text);
const line = (n: number, pad = 0) => `${JSON.stringify({ n, pad: "x".repeat(pad) })}\n`;

describe("admission log", () => {
  for (const durability of ["fsync", "process"] as const) {
    test(`${durability}: records read back in order, up to the first zero byte of a preallocated segment`, async () => {
      const dir = logDir();
      const log = openJournalLog(dir, durability);
      for (let n = 1; n <= 3; n++) assert.equal(await log.write(bytes(line(n) + "\n")), 1);
      const { lines, segments } = readJournalLog(dir);
      assert.deepEqual(lines.map((l) => JSON.parse(l).n), [1, 2, 3]);
      assert.deepEqual(segments, [1]);
      assert.ok(statSync(join(dir, "00000001.seg")).size >= 1024 * 1024, "segments are created at full size");
      log.close(false);
    });
  }

  test("a torn last record ends the segment; the next segment is still read", () => {
    const dir = logDir();
    const log = openJournalLog(dir, "process");
    log.close(false);
    writeFileSync(join(dir, "00000001.seg"), `${line(1)}${line(2)}{"n":3,"pa`);
    writeFileSync(join(dir, "00000002.seg"), `${line(4)}`);
    assert.deepEqual(readJournalLog(dir).lines.map((l) => JSON.parse(l).n), [1, 2, 4]);
  });

  test("writes roll over to new segments; released segments are deleted, the current one never", async () => {
    const dir = logDir();
    const log = openJournalLog(dir, "process");
    const big = line(0, 1024 * 1024);
    const segments: number[] = [];
    for (let i = 0; i < 9; i++) segments.push(await log.write(bytes(big)));
    assert.deepEqual([...new Set(segments)], [1, 2, 3], "about 4 MiB per segment");
    assert.equal(readJournalLog(dir).lines.length, 9);
    log.release(3);
    assert.deepEqual(readJournalLog(dir).segments.filter((n) => n <= 3), [3]);
    log.release(99);
    assert.ok(existsSync(join(dir, `0000000${log.segment}.seg`)), "the segment being written stays");
    // A record larger than a segment gets a segment of its own.
    const huge = line(1, 5 * 1024 * 1024);
    const n = await log.write(bytes(huge));
    assert.ok(n > 3);
    assert.equal(JSON.parse(readJournalLog(dir).lines.at(-1)!).n, 1);
    log.close(true);
    assert.deepEqual(readdirSync(dir).filter((name) => Number(name.slice(0, 8)) <= n), [], "closing an applied log deletes its segments");
  });

  test("process durability appends synchronously, across segments; fsync durability only writes asynchronously", () => {
    const dir = logDir();
    const log = openJournalLog(dir, "process");
    const big = line(0, 1024 * 1024);
    const segments = Array.from({ length: 6 }, () => log.appendNow!(bytes(big)));
    const used = [...new Set(segments)];
    assert.equal(used.length, 2, "about 4 MiB per segment");
    assert.ok(used[0]! < used[1]!, "segment numbers grow in write order (one still being prepared is skipped)");
    assert.equal(readJournalLog(dir).lines.length, 6);
    log.close(true);
    const fsynced = openJournalLog(logDir(), "fsync");
    assert.equal(fsynced.appendNow, undefined);
    fsynced.close(true);
  });

  test("a new log numbers its segments after those left on disk; removeSegments deletes them", async () => {
    const dir = logDir();
    const first = openJournalLog(dir, "fsync");
    await first.write(bytes(line(1)));
    first.close(false);
    const second = openJournalLog(dir, "fsync");
    assert.equal(second.segment, 2);
    assert.deepEqual(readJournalLog(dir).lines.map((l) => JSON.parse(l).n), [1]);
    removeSegments(dir, [1]);
    assert.deepEqual(readJournalLog(dir).segments, [2]);
    second.close(true);
    assert.deepEqual(readJournalLog(dir).segments, []);
  });

  test("a failed write is refused, and the next goes to a fresh segment (nothing after a torn record)", async () => {
    const dir = logDir();
    const log = openJournalLog(dir, "fsync");
    await log.write(bytes(line(1)));
    log.close(false); // the segment's file descriptor is gone: its next write fails
    await assert.rejects(log.write(bytes(line(2))));
    assert.equal(await log.write(bytes(line(3))), 2);
    assert.deepEqual(readJournalLog(dir).lines.map((l) => JSON.parse(l).n), [1, 3]);
  });
});
