import type { Kysely, Selectable } from "kysely";
import { newEntryId } from "../../shared/entry-id.ts";
import type { AuditEventTable, Database } from "../store-schema.ts";
import { decodePageCursor, encodePageCursor } from "./page-cursor.ts";
import type { AuditEvent, AuditInput, AuditPage, AuditQuery } from "../../shared/audit.ts";

/** Inserts one audit event inside the caller's transaction (the action and its record commit together). */
export async function insertAudit(trx: Kysely<Database>, input: AuditInput): Promise<AuditEvent> {
  const event: AuditEvent = { id: newEntryId(input.at), ...input };
  await trx
    .insertInto("audit_event")
    .values({
      id: event.id,
      at: event.at,
      actor: event.actor,
      action: event.action,
      target: event.target,
      before: event.before === null || event.before === undefined ? null : JSON.stringify(event.before),
      after: event.after === null || event.after === undefined ? null : JSON.stringify(event.after),
    })
    .execute();
  return event;
}

/** Newest-first page of audit events, paginated by (at, id). */
export async function listAudit(db: Kysely<Database>, query: AuditQuery): Promise<AuditPage> {
  const limit = Math.max(1, Math.min(query.limit, 10_000));
  let q = db.selectFrom("audit_event").selectAll();
  if (query.since !== undefined) q = q.where("at", ">=", query.since);
  if (query.until !== undefined) q = q.where("at", "<", query.until);
  if (query.actor !== undefined) q = q.where("actor", "=", query.actor);
  if (query.action !== undefined) q = q.where("action", "=", query.action);
  if (query.target !== undefined) q = q.where("target", "=", query.target);
  if (query.cursor !== undefined) {
    const cursor = decodePageCursor(query.cursor);
    q = q.where((eb) => eb.or([eb("at", "<", cursor.at), eb.and([eb("at", "=", cursor.at), eb("id", "<", cursor.id)])]));
  }
  const rows = await q.orderBy("at", "desc").orderBy("id", "desc").limit(limit + 1).execute();
  const events = rows.slice(0, limit).map(eventOf);
  const last = events[events.length - 1];
  return { events, nextCursor: rows.length > limit && last ? encodePageCursor(last.at, last.id) : null };
}

function eventOf(r: Selectable<AuditEventTable>): AuditEvent {
  return {
    id: r.id,
    at: Number(r.at),
    actor: r.actor,
    action: r.action,
    target: r.target,
    before: r.before === null ? null : (JSON.parse(r.before) as unknown),
    after: r.after === null ? null : (JSON.parse(r.after) as unknown),
  };
}
