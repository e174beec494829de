import type { Insertable, Kysely, Selectable } from "kysely";
import { reachedThresholds, type AlertRules } from "../../alerts/alert-rules.ts";
import { fromNanos } from "../../budgets/budget-amounts.ts";
import type { BudgetDeltas } from "../../budgets/budget-deltas.ts";
import { newEntryId } from "../../shared/entry-id.ts";
import type { HotStatements } from "../statements/hot-statements.ts";
import type { BudgetRow } from "../statements/store-admit.ts";
import type { AlertAttempt, AlertEvent, AlertStatus, ClaimedAlert } from "../../alerts/alert-outbox.ts";
import type { AlertEventTable, Database } from "../store-schema.ts";
import type { RunQuery } from "../statements/store-transaction.ts";

/**
 * Writes a `budget.threshold` event for every threshold the rows changed by `deltas` have
 * reached, in the transaction that changed them (so it survives a crash with them). Only rows
 * whose spend moved and whose budget has alerts are read; an event already written for the
 * budget, period and threshold stays as it is (unique index), so each fires once per period
 * however many batches and relays reach it.
 */
export async function recordThresholds(trx: Kysely<Database>, run: RunQuery, hot: HotStatements, rules: AlertRules, deltas: BudgetDeltas, now: number): Promise<void> {
  const keys = [...deltas.values()].filter((d) => d.spent > 0 && rules.budgets.has(d.budgetId));
  if (keys.length === 0) return;
  const events: Array<Insertable<AlertEventTable>> = [];
  for (const row of (await run<BudgetRow>(hot.selectBudgetRows(keys))).rows) {
    const rule = rules.budgets.get(row.budget_id)!;
    const [spent, limit] = [Number(row.spent_nanos), Number(row.limit_nanos)];
    for (const threshold of reachedThresholds(rule, spent, limit)) {
      const id = newEntryId(now);
      const payload = { id, type: "budget.threshold", budget: row.budget_id, period: row.period, threshold, limit: fromNanos(limit), spent: fromNanos(spent), currency: rules.currency, at: new Date(now).toISOString() };
      events.push({ ...newEvent(id, "budget.threshold", rule.webhook, payload, now), budget_id: row.budget_id, period: row.period, threshold });
    }
  }
  if (events.length === 0) return;
  await trx.insertInto("alert_event").values(events).onConflict((oc) => oc.columns(["budget_id", "period", "threshold"]).doNothing()).execute();
}

/** What startup recovery (or a PostgreSQL sweep) found: entries marked interrupted, and what they held reserved. */
export interface Interrupted {
  entries: number;
  /** Of those, entries holding a reservation (now pending reconciliation). */
  pending: number;
  /** Sum of their largest reserved amounts. */
  reserved: number;
}

/** Writes a `journal.interrupted` event (in the recovery transaction) when a webhook is set for it and entries were interrupted. */
export async function recordInterrupted(trx: Kysely<Database>, rules: AlertRules, found: Interrupted, now: number): Promise<void> {
  if (rules.interruptedWebhook === null || found.entries === 0) return;
  const id = newEntryId(now);
  const payload = { id, type: "journal.interrupted", entries: found.entries, pending: found.pending, reserved: found.reserved, currency: rules.currency, at: new Date(now).toISOString() };
  await trx.insertInto("alert_event").values(newEvent(id, "journal.interrupted", rules.interruptedWebhook, payload, now)).execute();
}

function newEvent(id: string, type: string, webhook: string, payload: object, now: number): Insertable<AlertEventTable> {
  return { id, type, webhook, payload: JSON.stringify(payload), status: "pending", attempts: 0, created_at: now, next_attempt_at: now };
}

/** Leases due pending events to this dispatcher (see AlertOutbox.claimAlerts); `lockRows`: PostgreSQL's FOR UPDATE SKIP LOCKED. */
export async function claimInTransaction(trx: Kysely<Database>, now: number, limit: number, leaseMs: number, lockRows: boolean): Promise<ClaimedAlert[]> {
  let query = trx
    .selectFrom("alert_event")
    .select(["id", "webhook", "payload", "attempts"])
    .where("status", "=", "pending")
    .where("next_attempt_at", "<=", now)
    .where((eb) => eb.or([eb("lease_until", "is", null), eb("lease_until", "<=", now)]))
    .orderBy("next_attempt_at")
    .orderBy("id")
    .limit(limit);
  if (lockRows) query = query.forUpdate().skipLocked();
  const due = await query.execute();
  if (due.length === 0) return [];
  await trx
    .updateTable("alert_event")
    .set((eb) => ({ lease_until: now + leaseMs, attempts: eb("attempts", "+", 1) }))
    .where("id", "in", due.map((e) => e.id))
    .execute();
  return due.map((e) => ({ id: e.id, webhook: e.webhook, payload: e.payload, attempts: Number(e.attempts) + 1 }));
}

/** Records one attempt's result and lets go of the lease. */
export async function settleAlert(db: Kysely<Database>, id: string, attempt: AlertAttempt, now: number): Promise<void> {
  const values = attempt.delivered
    ? { status: "delivered", delivered_at: now }
    : attempt.retryAt === null
      ? { status: "failed", last_error: attempt.error }
      : { next_attempt_at: attempt.retryAt, last_error: attempt.error };
  await db.updateTable("alert_event").set({ ...values, lease_until: null }).where("id", "=", id).where("status", "=", "pending").execute();
}

/** Events newest first, optionally of one status. */
export async function listAlerts(db: Kysely<Database>, query: { status?: AlertStatus; limit: number }): Promise<AlertEvent[]> {
  let q = db.selectFrom("alert_event").selectAll();
  if (query.status !== undefined) q = q.where("status", "=", query.status);
  const rows = await q.orderBy("created_at", "desc").orderBy("id", "desc").limit(Math.max(1, Math.min(query.limit, 10_000))).execute();
  return rows.map(toEvent);
}

const num = (v: number | null): number | null => (v === null ? null : Number(v));

function toEvent(r: Selectable<AlertEventTable>): AlertEvent {
  return {
    id: r.id,
    type: r.type,
    budgetId: r.budget_id,
    period: r.period,
    threshold: num(r.threshold),
    webhook: r.webhook,
    status: r.status as AlertStatus,
    attempts: Number(r.attempts),
    createdAt: Number(r.created_at),
    nextAttemptAt: Number(r.next_attempt_at),
    deliveredAt: num(r.delivered_at),
    lastError: r.last_error,
    payload: JSON.parse(r.payload) as unknown,
  };
}
