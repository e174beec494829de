import type { Kysely, Selectable } from "kysely";
import type { Database, JournalQuarantineTable } from "../store-schema.ts";
import { decodePageCursor, encodePageCursor } from "./page-cursor.ts";

/**
 * The journal quarantine (schema 8): records the store refused, one row per entry and kind,
 * listed newest first. Writing one twice keeps the first (a replay or a retry quarantines again).
 */

/** What a quarantined record is: which journal record the store refused. */
export type QuarantineKind = "admission" | "completion" | "refusal" | "unsent";

/** A journal record the store refused, as kept in the quarantine (`journal_quarantine`). */
export interface QuarantinedRecord {
  /** The journal entry the record is about. */
  entryId: string;
  kind: QuarantineKind;
  /** The record as Renio had it, as an admission-log line (JSON, its format version first; every character the store cannot hold escaped). */
  record: string;
  /** The store's code: an SQLSTATE, or SQLite's extended code (`SQLITE_CONSTRAINT_NOTNULL`). */
  errorCode: string;
  /** The store's message, control characters escaped, at most 500 characters. */
  error: string;
  /** Its safe form (texts escaped and bounded, bodies left out) was written to the journal instead. */
  written: boolean;
  /** Epoch ms. */
  at: number;
}

/** One page of quarantined records, newest first. */
export interface QuarantinePage {
  records: QuarantinedRecord[];
  nextCursor: string | null;
}

/** Records the store refused, kept for inspection instead of blocking the journal (journal/record-isolation.ts). */
export interface QuarantineStore {
  /** Keeps `records`, once each (a record quarantined again is left as it was). */
  quarantine(records: readonly QuarantinedRecord[]): Promise<void>;
  /** Newest first; `cursor` is the previous page's `nextCursor` (anything else: RelayError 400). */
  listQuarantine(query: { limit: number; since?: number; cursor?: string }): Promise<QuarantinePage>;
}

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
