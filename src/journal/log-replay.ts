import { readJournalLog, removeSegments, segmentPath } from "./log-segments.ts";
import { decodeLogRecord, LogRecordError } from "../storage/admission-log-record.ts";
import { StoreOpenError } from "../storage/store-errors.ts";
import type { LogApplyStore } from "../storage/store.ts";

/** Record lines applied per transaction while replaying. */
const REPLAY_BATCH = 512;

/**
 * Applies what a previous relay process logged but had not applied to the database yet (it
 * died first), then deletes its segments. Applying is idempotent, so records that did reach
 * the database change nothing. Every record is checked first: one this Renio cannot read (a
 * newer format version, or corrupt) throws StoreOpenError naming its file and line, and
 * nothing is applied. Returns how many records were read.
 */
export async function replayAdmissionLog(store: LogApplyStore, dir: string): Promise<number> {
  const { lines, origins, segments } = readJournalLog(dir);
  lines.forEach((line, i) => {
    try {
      decodeLogRecord(line);
    } catch (error) {
      if (!(error instanceof LogRecordError)) throw error;
      const { segment, line: number } = origins[i]!;
      throw new StoreOpenError(
        `cannot replay the admission log: ${segmentPath(dir, segment)} line ${number}: ${error.message} ` +
          "(the log holds calls not yet in the database: Renio does not start without them)",
      );
    }
  });
  for (let at = 0; at < lines.length; at += REPLAY_BATCH) {
    await store.applyLog(lines.slice(at, at + REPLAY_BATCH).join("\n"));
  }
  removeSegments(dir, segments);
  return lines.length;
}
