import type { Kysely, Selectable } from "kysely";
import type { Database, JournalQuarantineTable } from "../store-schema.ts";
import { decodePageCursor, encodePageCursor } from "./page-cursor.ts";
import type { QuarantineKind, QuarantinePage, QuarantinedRecord } from "../../journal/journal-store.ts";

/**
 * The journal quarantine (schema 8): records the store refused, one row per entry and kind,
 * listed newest first. Writing one twice keeps the first (a replay or a retry quarantines again).
 */

/** Inserts `records`, leaving those already there alone. */
export async function insertQuarantined(db: Kysely<Database>, records: readonly QuarantinedRecord[]): Promise<void> {
  if (records.length === 0) return;
  await db
    .insertInto("journal_quarantine")
    .values(records.map((r) => ({ entry_id: r.entryId, kind: r.kind, record: r.record, error_code: r.errorCode, error: r.error, written: r.written ? 1 : 0, at: r.at })))
    .onConflict((oc) => oc.columns(["entry_id", "kind"]).doNothing())
    .execute();
}

/** Newest-first page, paginated by (at, entry id, kind). */
export async function listQuarantined(db: Kysely<Database>, query: { limit: number; since?: number; cursor?: string }): Promise<QuarantinePage> {
  const limit = Math.max(1, Math.min(query.limit, 10_000));
  let q = db.selectFrom("journal_quarantine").selectAll();
  if (query.since !== undefined) q = q.where("at", ">=", query.since);
  if (query.cursor !== undefined) {
    const cursor = decodePageCursor(query.cursor);
    const slash = cursor.id.indexOf("/");
    const [kind, entryId] = [cursor.id.slice(0, slash), cursor.id.slice(slash + 1)];
    q = q.where((eb) =>
      eb.or([
        eb("at", "<", cursor.at),
        eb.and([eb("at", "=", cursor.at), eb.or([eb("entry_id", "<", entryId), eb.and([eb("entry_id", "=", entryId), eb("kind", "<", kind)])])]),
      ]),
    );
  }
  const rows = await q.orderBy("at", "desc").orderBy("entry_id", "desc").orderBy("kind", "desc").limit(limit + 1).execute();
  const records = rows.slice(0, limit).map(recordOf);
  const last = records[records.length - 1];
  return { records, nextCursor: rows.length > limit && last ? encodePageCursor(last.at, `${last.kind}/${last.entryId}`) : null };
}

function recordOf(r: Selectable<JournalQuarantineTable>): QuarantinedRecord {
  return { entryId: r.entry_id, kind: r.kind as QuarantineKind, record: r.record, errorCode: r.error_code, error: r.error, written: Number(r.written) === 1, at: Number(r.at) };
}
