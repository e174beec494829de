import type { Kysely, Selectable } from "kysely";
import { newEntryId } from "../../shared/entry-id.ts";
import type { AuditEventTable, Database } from "../store-schema.ts";
import { decodePageCursor, encodePageCursor } from "./page-cursor.ts";

/** Who acts, and when (epoch ms). */
export interface AuditActor {
  /** The admin identity, e.g. the admin token's id (`admin`) or `local:<user>` for the CLI on the store. */
  readonly actor: string;
  readonly at: number;
}

/**
 * One admin action to record. `before` / `after` are the states of the target (null: none, as
 * before a create); they must hold no secret and no hash: what is passed is what is stored.
 */
export interface AuditInput extends AuditActor {
  /** `<noun>.<verb>`, e.g. `key.create`, `budget.update`, `config.reload`. */
  readonly action: string;
  /** `<kind>:<id>`, e.g. `key:ci-bot`. */
  readonly target: string;
  readonly before: unknown;
  readonly after: unknown;
}

/** A recorded admin action. */
export interface AuditEvent extends AuditInput {
  readonly id: string;
}

/** Filters and page of the audit; newest first. */
export interface AuditQuery {
  /** Epoch ms, inclusive. */
  since?: number;
  /** Epoch ms, exclusive. */
  until?: number;
  actor?: string;
  action?: string;
  target?: string;
  limit: number;
  /** `nextCursor` of the previous page; anything else rejects with RelayError 400 `invalid_request`. */
  cursor?: string;
}

/** One page of audit events. */
export interface AuditPage {
  events: AuditEvent[];
  nextCursor: string | null;
}

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
