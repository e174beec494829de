import { readJournalLog, removeSegments } from "./log-segments.ts";
import type { LogApplyStore } from "../storage/store.ts";

/** Record lines applied per transaction while replaying. */
const REPLAY_BATCH = 512;

/**
 * Applies what a previous relay process logged but had not applied to the database yet (it
 * died first), then deletes its segments. Applying is idempotent, so records that did reach
 * the database change nothing. Returns how many records were read.
 */
export async function replayAdmissionLog(store: LogApplyStore, dir: string): Promise<number> {
  const { lines, segments } = readJournalLog(dir);
  for (let at = 0; at < lines.length; at += REPLAY_BATCH) {
    await store.applyLog(lines.slice(at, at + REPLAY_BATCH).join("\n"));
  }
  removeSegments(dir, segments);
  return lines.length;
}
