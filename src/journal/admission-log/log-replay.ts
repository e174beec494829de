import { readJournalLog, removeSegments, segmentPath } from "./log-segments.ts";
import { decodeLogRecord, LogRecordError, type LogRecord } from "./admission-log-record.ts";
import { StoreOpenError } from "../../shared/store-open-error.ts";
import type { LogApplyStore, StoreLifecycle, QuarantinedRecord, QuarantineStore } from "../journal-store.ts";
import { applyIsolated } from "../log-apply-batch.ts";
import { createQuarantine } from "../record-isolation.ts";

/** Record lines applied per transaction while replaying. */
const REPLAY_BATCH = 512;

/**
 * Applies what a previous relay process logged but had not applied to the database yet (it
 * died first), then deletes its segments. Applying is idempotent, so records that did reach
 * the database change nothing. Every record is checked first: one this Renio cannot read (a
 * newer format version, or corrupt) throws StoreOpenError naming its file and line, and
 * nothing is applied. A record it reads but the database refuses is written in its safe form
 * and quarantined (record-isolation.ts; `onQuarantine` hears of it), as while serving. Returns
 * how many records were read.
 */
export async function replayAdmissionLog(
  store: LogApplyStore & QuarantineStore & Pick<StoreLifecycle, "ping">,
  dir: string,
  onQuarantine: (record: QuarantinedRecord) => void = () => undefined,
): Promise<number> {
  const { lines, origins, segments } = readJournalLog(dir);
  const records: LogRecord[] = lines.map((line, i) => {
    try {
      return decodeLogRecord(line);
    } catch (error) {
      if (!(error instanceof LogRecordError)) throw error;
      const { segment, line: number } = origins[i]!;
      throw new StoreOpenError(
        `cannot replay the admission log: ${segmentPath(dir, segment)} line ${number}: ${error.message} ` +
          "(the log holds calls not yet in the database: Renio does not start without them)",
      );
    }
  });
  const quarantine = createQuarantine(store, onQuarantine);
  for (let at = 0; at < lines.length; at += REPLAY_BATCH) {
    const batch = lines.slice(at, at + REPLAY_BATCH).map((line, i) => ({ line: `${line}\n`, record: records[at + i]!, segment: null }));
    await applyIsolated(store, batch, quarantine);
  }
  removeSegments(dir, segments);
  return lines.length;
}
