import type { AlertRules } from "./alert-rules.ts";

/** The alerts' store port: the outbox the budget and recovery transactions write events to, and the dispatcher delivers from. storage/ implements it. */

/** Where an alert event is in its delivery. */
export type AlertStatus = "pending" | "delivered" | "failed";

/** One alert event as listed (`renio alerts list`, `GET /admin/alerts`). */
export interface AlertEvent {
  id: string;
  type: string;
  budgetId: string | null;
  period: string | null;
  threshold: number | null;
  webhook: string;
  status: AlertStatus;
  attempts: number;
  /** Epoch ms. */
  createdAt: number;
  nextAttemptAt: number;
  deliveredAt: number | null;
  lastError: string | null;
  /** The body sent (as parsed JSON). */
  payload: unknown;
}

/** An event claimed for one delivery attempt. */
export interface ClaimedAlert {
  id: string;
  webhook: string;
  /** The exact body to send. */
  payload: string;
  /** Attempts so far, this one included. */
  attempts: number;
}

/** What one delivery attempt came to. */
export type AlertAttempt = { delivered: true } | { delivered: false; error: string; /** null: no more attempts (failed). */ retryAt: number | null };

/** The alert outbox: events are written by the budget and recovery transactions, delivered by the dispatcher. */
export interface AlertOutbox {
  /** The thresholds and webhooks in effect (config load and reload); events are written by them from now on. */
  setAlertRules(rules: AlertRules): Promise<void>;
  /**
   * Claims up to `limit` pending events due at `now` that no other dispatcher holds: each is
   * leased until now + leaseMs (PostgreSQL: `FOR UPDATE SKIP LOCKED`) and its attempt counted.
   */
  claimAlerts(now: number, limit: number, leaseMs: number): Promise<ClaimedAlert[]>;
  /** Records an attempt: delivered, retried at `retryAt`, or failed for good. */
  settleAlert(id: string, attempt: AlertAttempt, now: number): Promise<void>;
  /** Events, newest first. */
  listAlerts(query: { status?: AlertStatus; limit: number }): Promise<AlertEvent[]>;
}
