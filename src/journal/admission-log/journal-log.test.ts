import assert from "node:assert/strict";
import { existsSync, mkdtempSync, readdirSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, describe, test } from "node:test";
import { constants, closeSync, openSync } from "node:fs";
import { openJournalLog, type JournalLogOptions } from "./journal-log.ts";
import { admissionLogDir, readJournalLog, removeSegments } from "./log-segments.ts";

const dirs: string[] = [];
after(() => dirs.forEach((dir) => rmSync(dir, { recursive: true, force: true })));

function logDir(): string {
  const dir = mkdtempSync(join(tmpdir(), "renio-log-"));
  dirs.push(dir);
  return admissionLogDir(join(dir, "renio.db"));
}

const bytes = (text: string) => new TextEncoder().encode(text);

/** Whether files in `dir` can be opened for direct I/O (tmpfs, for one, refuses it). */
function directIoIn(dir: string): boolean {
  try {
    closeSync(openSync(join(dir, "00000001.seg"), constants.O_RDONLY | (constants.O_DIRECT ?? 0)));
    return constants.O_DIRECT !== undefined;
  } catch {
    return false;
  }
}

/** The ways the log writes: fsync direct where the disk allows it, fsync through the page cache, process. */
const WAYS: readonly { name: string; durability: "fsync" | "process"; options: JournalLogOptions }[] = [
  { name: "fsync", durability: "fsync", options: {} },
  { name: "fsync, no direct I/O", durability: "fsync", options: { direct: false } },
  { name: "process", durability: "process", options: {} },
];
const line = (n: number, pad = 0) => `${JSON.stringify({ n, pad: "x".repeat(pad) })}\n`;

describe("admission log", () => {
  for (const { name, durability, options } of WAYS) {
    test(`${name}: records read back in order, up to the first zero byte of a preallocated segment`, async () => {
      const dir = logDir();
      const log = openJournalLog(dir, durability, options);
      const expected = durability === "process" ? "buffered" : options.direct === false || !directIoIn(dir) ? "dsync" : "direct";
      assert.equal(log.writeMethod, expected);
      for (let n = 1; n <= 3; n++) assert.equal(await log.write(bytes(line(n) + "\n")), 1);
      const { lines, segments } = readJournalLog(dir);
      assert.deepEqual(lines.map((l) => JSON.parse(l).n), [1, 2, 3]);
      assert.deepEqual(segments, [1]);
      assert.ok(statSync(join(dir, "00000001.seg")).size >= 1024 * 1024, "segments are created at full size");
      log.close(false);
    });

    test(`${name}: records of every size, written on the thread and on the pool, across blocks and segments, read back exactly`, async () => {
      const dir = logDir();
      const log = openJournalLog(dir, durability, options);
      const sizes = [1, 255, 4095, 4096, 4097, 17, 8191, 70_000, 3, 1024 * 1024 + 5];
      const written: number[] = [];
      for (let round = 0; round < 6; round++) {
        for (const [i, size] of sizes.entries()) {
          const n = round * sizes.length + i;
          const record = bytes(line(n, size));
          if (n % 2 === 0) await log.write(record);
          else log.appendSync(record);
          written.push(n);
        }
      }
      const { lines, segments } = readJournalLog(dir);
      assert.deepEqual(lines.map((l) => JSON.parse(l).n), written);
      assert.deepEqual(lines.map((l) => JSON.parse(l).pad.length), written.map((n) => sizes[n % sizes.length]));
      assert.ok(segments.length > 1, "the records filled more than one segment");
      for (const n of segments) assert.equal(statSync(join(dir, `0000000${n}.seg`.slice(-12))).size % 4096, 0, "segments are whole blocks");
      log.close(true);
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

  for (const direct of [true, false]) {
    test(`fsync${direct ? "" : ", no direct I/O"}: a failed write is refused, and the next goes to a fresh segment (nothing after a torn record)`, async () => {
      const dir = logDir();
      const log = openJournalLog(dir, "fsync", { direct });
      await log.write(bytes(line(1)));
      log.close(false); // the segment's file descriptor is gone: its next write fails
      await assert.rejects(log.write(bytes(line(2))));
      assert.equal(await log.write(bytes(line(3))), 2);
      assert.equal(log.appendSync(bytes(line(4))), 2);
      assert.deepEqual(readJournalLog(dir).lines.map((l) => JSON.parse(l).n), [1, 3, 4]);
      log.close(true);
    });
  }
});
