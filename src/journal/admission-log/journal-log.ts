import { closeSync, constants, fsyncSync, mkdirSync, openSync, rmSync, unlinkSync, write, writeSync } from "node:fs";
import { open } from "node:fs/promises";
import type { Durability } from "../journal-store.ts";
import { DIRECT_BLOCK_BYTES, DirectStager } from "./direct-append.ts";
import { segmentPath, segmentsIn, syncDirectory } from "./log-segments.ts";

/**
 * Writing the admission log (its format: log-segments.ts). A segment is created full of
 * zeros, so later writes never change the file's size: an O_DSYNC write then flushes data
 * only, no metadata. With "fsync", where the file system takes direct I/O, segments are
 * written `O_DIRECT | O_DSYNC` (direct-append.ts: no page cache on the way to the disk). The
 * next segment is prepared off the request path.
 */

/** Options of {@link openJournalLog}. */
export interface JournalLogOptions {
  /** With "fsync": write with direct I/O where the file system allows it (default true). */
  readonly direct?: boolean;
}

/** Where writes go. */
export interface JournalLog {
  /**
   * Appends `bytes` (whole lines); resolves with the segment holding them once they are as
   * durable as the log's durability ("fsync": on disk; "process": in the operating system).
   * One write at a time: the caller waits for each before the next.
   */
  write(bytes: Uint8Array): Promise<number>;
  /**
   * With "process" durability only (nothing to wait for): appends `bytes` now, synchronously,
   * and returns the segment holding them; throws when the write fails. Not mixed with `write`.
   */
  readonly appendNow: ((bytes: Uint8Array) => number) | undefined;
  /**
   * Appends `bytes` now on the calling thread and returns the segment holding them once they
   * are as durable as the log's durability (with "fsync", one O_DSYNC write: the thread blocks
   * for it); throws when the write fails. Only while no `write` is in flight or waiting (a later
   * record must never be acknowledged ahead of an earlier one that may still fail).
   */
  appendSync(bytes: Uint8Array): number;
  /** The segment the next write goes to (or a later one). */
  readonly segment: number;
  /** Deletes the segments numbered below `segment` (every record in them is applied). */
  release(segment: number): void;
  /** Closes the log; with `applied`, deletes every segment (nothing in them is still needed). */
  close(applied: boolean): void;
  /** How durable writes reach the disk: `direct` (O_DIRECT | O_DSYNC), `dsync` (O_DSYNC), or `buffered` ("process"). */
  readonly writeMethod: "direct" | "dsync" | "buffered";
}

/** Segment size (bytes) unless a single write needs more (sizes are whole blocks). */
const SEGMENT_BYTES = 4 * 1024 * 1024;
const ZEROS = new Uint8Array(1024 * 1024);

interface Segment {
  n: number;
  fd: number;
  size: number;
  offset: number;
  /** Closes the file (the handle that opened it, when opened asynchronously). */
  close(): void;
}

/** A segment being created ahead of need. */
interface Preparing {
  n: number;
  ready: Promise<Segment | undefined>;
  /** Set once it is ready. */
  segment?: Segment;
}

/** Opens a new log in `dir` (created if missing), numbering segments after any present. */
export function openJournalLog(dir: string, durability: Durability, options: JournalLogOptions = {}): JournalLog {
  mkdirSync(dir, { recursive: true });
  const flags = constants.O_RDWR | constants.O_CREAT | constants.O_EXCL | (durability === "fsync" ? constants.O_DSYNC : 0);
  const fsync = durability === "fsync";
  /** Set once the first segment exists (it is the probe), when writes go direct. */
  let stager: DirectStager | undefined;
  /** A segment filled and synced through `fd`, reopened for direct appends when writes go direct. */
  const writable = (n: number, fd: number, size: number, close: () => void): Segment => {
    if (!stager) return { n, fd, size, offset: 0, close };
    close();
    const direct = DirectStager.open(segmentPath(dir, n));
    return { n, fd: direct, size, offset: 0, close: () => closeSync(direct) };
  };

  /** Creates a zero-filled segment synchronously (at open, or when a write outgrows the prepared one). */
  const create = (n: number, size: number): Segment => {
    const fd = openSync(segmentPath(dir, n), flags, 0o600);
    try {
      for (let at = 0; at < size; at += ZEROS.byteLength) writeSync(fd, ZEROS, 0, Math.min(ZEROS.byteLength, size - at), at);
      if (fsync) fsyncSync(fd);
    } catch (error) {
      closeSync(fd);
      throw error;
    }
    if (fsync) syncDirectory(dir);
    return writable(n, fd, size, () => closeSync(fd));
  };
  /** Creates one off the request path (the event loop keeps serving while it is filled). */
  const prepare = async (n: number): Promise<Segment> => {
    const handle = await open(segmentPath(dir, n), flags, 0o600);
    try {
      for (let at = 0; at < SEGMENT_BYTES; at += ZEROS.byteLength) await handle.write(ZEROS, 0, ZEROS.byteLength, at);
      if (fsync) await handle.sync();
    } catch (error) {
      await handle.close();
      throw error;
    }
    if (fsync) syncDirectory(dir);
    return writable(n, handle.fd, SEGMENT_BYTES, () => void handle.close().catch(() => undefined));
  };

  /** The highest segment number taken (numbers only grow, in write order). */
  let lastN = (segmentsIn(dir).at(-1) ?? 0) + 1;
  let current = create(lastN, SEGMENT_BYTES);
  if (fsync && options.direct !== false) {
    stager = DirectStager.forFilesLike(segmentPath(dir, current.n));
    if (stager) current = writable(current.n, current.fd, current.size, current.close);
  }
  const live: Segment[] = [current];
  /** The next segment being prepared, and the segment once it is ready. */
  let next: Preparing | undefined;
  let closed = false;

  /** Moves writing to the prepared segment, or to a new one created now. */
  const moveTo = (prepared: Segment | undefined, needed: number): void => {
    next = undefined; // one still being prepared is discarded when it is ready
    if (prepared) live.push(prepared);
    // A write larger than a segment gets one of its own (the prepared one stays empty).
    current = prepared && needed <= prepared.size ? prepared : create(++lastN, Math.ceil(Math.max(SEGMENT_BYTES, needed) / DIRECT_BLOCK_BYTES) * DIRECT_BLOCK_BYTES);
    if (current !== prepared) live.push(current);
  };
  const advance = async (needed: number): Promise<void> => moveTo(next ? await next.ready : undefined, needed);

  /** Once a segment is half full, its successor is prepared off the request path. */
  const prepareNextAfter = (segment: Segment): void => {
    if (segment.offset * 2 <= segment.size || next !== undefined || closed) return;
    const n = ++lastN;
    const preparing: Preparing = {
      n,
      ready: prepare(n).then(
        (prepared) => (next !== preparing || closed ? discard(prepared) : (preparing.segment = prepared)),
        () => undefined,
      ),
    };
    next = preparing;
  };

  /** Closes and deletes a prepared segment nobody will write (the log closed first). */
  const discard = (segment: Segment): undefined => {
    segment.close();
    rmSync(segmentPath(dir, segment.n), { force: true });
    return undefined;
  };

  const writeAt = (segment: Segment, bytes: Uint8Array): Promise<void> => {
    const at = segment.offset;
    segment.offset += bytes.byteLength;
    if (!fsync) {
      writeSync(segment.fd, bytes, 0, bytes.byteLength, at);
      return Promise.resolve();
    }
    if (stager) return stager.append(segment.fd, bytes, at);
    return new Promise<void>((resolve, reject) => {
      write(segment.fd, bytes, 0, bytes.byteLength, at, (error, written) => {
        if (error) reject(error);
        else if (written !== bytes.byteLength) reject(new Error(`short write to the admission log (${written} of ${bytes.byteLength} bytes)`));
        else resolve();
      });
    });
  };

  const appendSync = (bytes: Uint8Array): number => {
    if (current.offset + bytes.byteLength > current.size) moveTo(next?.segment, bytes.byteLength);
    const segment = current;
    const at = segment.offset;
    segment.offset += bytes.byteLength;
    try {
      if (stager) stager.appendSync(segment.fd, bytes, at);
      else {
        const written = writeSync(segment.fd, bytes, 0, bytes.byteLength, at);
        if (written !== bytes.byteLength) throw new Error(`short write to the admission log (${written} of ${bytes.byteLength} bytes)`);
      }
    } catch (error) {
      segment.offset = segment.size;
      throw error;
    }
    prepareNextAfter(segment);
    return segment.n;
  };

  return {
    get segment() {
      return current.n;
    },
    async write(bytes) {
      if (current.offset + bytes.byteLength > current.size) await advance(bytes.byteLength);
      const segment = current;
      try {
        await writeAt(segment, bytes);
      } catch (error) {
        // Nothing after a failed write may be acknowledged (it could follow a torn record):
        // later writes go to a fresh segment.
        segment.offset = segment.size;
        throw error;
      }
      prepareNextAfter(segment);
      return segment.n;
    },
    appendNow: fsync ? undefined : appendSync,
    appendSync,
    get writeMethod() {
      return stager ? "direct" : fsync ? "dsync" : "buffered";
    },
    release(below) {
      while (live.length > 1 && (live[0] as Segment).n < below) {
        const done = live.shift() as Segment;
        done.close();
        unlinkSync(segmentPath(dir, done.n));
      }
    },
    close(applied) {
      closed = true;
      void next?.ready.then((prepared) => prepared && discard(prepared));
      next = undefined;
      for (const segment of live.splice(0)) {
        segment.close();
        if (applied) unlinkSync(segmentPath(dir, segment.n));
      }
    },
  };
}
