import { closeSync, fsyncSync, openSync, readdirSync, readFileSync, unlinkSync } from "node:fs";
import { join } from "node:path";

/**
 * The admission log on disk: a directory beside the SQLite database holding numbered segment
 * files of newline-separated JSON records (admission-log-record.ts), in write order. A
 * segment ends at its first zero byte (segments are created zero-filled); a last line cut
 * short there (a torn write, never acknowledged) is not a record.
 */

/** The admission log directory of the SQLite database at `databasePath` (beside it). */
export function admissionLogDir(databasePath: string): string {
  return `${databasePath}-log`;
}

/** What a log directory held: its record lines in order, where each is, and its segment numbers. */
export interface LogContents {
  lines: string[];
  /** Where each line is: its segment and its line number in that file (from 1). */
  origins: Array<{ segment: number; line: number }>;
  segments: number[];
}

/** The file of segment `n`. */
export const segmentPath = (dir: string, n: number): string => join(dir, `${String(n).padStart(8, "0")}.seg`);

/** Segment numbers in `dir`, ascending (none when it does not exist). */
export function segmentsIn(dir: string): number[] {
  let names: string[];
  try {
    names = readdirSync(dir);
  } catch {
    return [];
  }
  return names.flatMap((name) => (/^\d{8}\.seg$/.test(name) ? [Number(name.slice(0, 8))] : [])).sort((a, b) => a - b);
}

/**
 * Reads every record line of the log in `dir`, in order, up to each segment's end. A torn
 * last line (a write cut short: no newline, not JSON) ends its segment; every other line is
 * returned as it is, for the reader to judge.
 */
export function readJournalLog(dir: string): LogContents {
  const segments = segmentsIn(dir);
  const lines: string[] = [];
  const origins: LogContents["origins"] = [];
  const decoder = new TextDecoder();
  for (const n of segments) {
    const bytes = readFileSync(segmentPath(dir, n));
    const end = bytes.indexOf(0);
    const split = decoder.decode(end < 0 ? bytes : bytes.subarray(0, end)).split("\n");
    for (let i = 0; i < split.length; i++) {
      const line = split[i]!;
      if (line === "" || (i === split.length - 1 && !parses(line))) continue;
      lines.push(line);
      origins.push({ segment: n, line: i + 1 });
    }
  }
  return { lines, origins, segments };
}

function parses(text: string): boolean {
  try {
    JSON.parse(text);
    return true;
  } catch {
    return false;
  }
}

/** Deletes the given segments of the log in `dir`. */
export function removeSegments(dir: string, segments: readonly number[]): void {
  for (const n of segments) unlinkSync(segmentPath(dir, n));
  syncDirectory(dir);
}

/** Makes created or deleted directory entries durable (best effort where directories cannot be opened). */
export function syncDirectory(dir: string): void {
  let fd: number | undefined;
  try {
    fd = openSync(dir, "r");
    fsyncSync(fd);
  } catch {
    // Some platforms cannot fsync a directory; the entry becomes durable with the file system's next commit.
  } finally {
    if (fd !== undefined) closeSync(fd);
  }
}
