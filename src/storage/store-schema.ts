import type { Generated } from "kysely";

/** Kysely table types of Renio's database (snake_case, as stored). */

/** One journal entry: written before the provider call, completed after it. */
export interface JournalEntryTable {
  id: string;
  /** Epoch ms. */
  received_at: number;
  /** The caller's x-request-id, when it sent one. */
  request_id: string | null;
  /** The relay process that admitted the entry (recovery leaves live instances' entries alone). */
  instance_id: string | null;
  key_id: string | null;
  project: string | null;
  route: string;
  model: string | null;
  provider: string | null;
  upstream_model: string | null;
  /** The region of the provider the call was routed to (schema 2). */
  region: string | null;
  /** 0 or 1. */
  stream: number;
  request_bytes: number;
  client_address: string;
  request_body: string | null;
  /** Epoch ms; null while the call is in flight. For interrupted entries: when it was detected. */
  finished_at: number | null;
  /** "started" while in flight, then an Outcome. */
  outcome: string;
  status: number | null;
  ttfb_ms: number | null;
  total_ms: number | null;
  upstream_ms: number | null;
  input_tokens: number | null;
  cached_input_tokens: number | null;
  output_tokens: number | null;
  /** Largest amount reserved by any charge of this call. */
  reserved_cost: number | null;
  /** JSON `[budgetId, period, amount][]` of the reservations, kept for reconciliation. */
  reserved_charges: string | null;
  cost: number | null;
  /** 1 when `cost` is the reservation charged without the provider's final usage, 0 when from its usage (schema 2). */
  cost_estimated: number | null;
  /** A cache hit's saving: the original call's cost (schema 10). */
  saved_cost: number | null;
  error_code: string | null;
  response_body: string | null;
  /** "pending" after a crash left the reservation charged, "settled" once reconciled. */
  reconcile: string | null;
  /** JSON array of the call's upstream attempts (JournalAttempt), written with its completion (schema 6). */
  attempts: string | null;
  /** JSON array of what guardrail policies found (JournalGuardrail), at admission and again with the completion (schema 9). */
  guardrails: string | null;
  /** Who the call is for, within its key's project (schema 11). */
  end_user: string | null;
  /** The team of the key's project when the call was admitted (schema 11). */
  team: string | null;
  /** JSON array of the call's allowed tags as [name, value] pairs (schema 11). */
  tags: string | null;
  /** The model the call asked for when a budget served it with a cheaper one (`model` holds that one; schema 11). */
  downgraded_from: string | null;
}

/** Spend of one budget in one period. Amounts in nano-units of the currency (exact integers). */
export interface BudgetUsageTable {
  budget_id: string;
  period: string;
  limit_nanos: number;
  spent_nanos: number;
  reserved_nanos: number;
  updated_at: number;
  /** Spend of the row's entries deleted by retention (schema 8): spent = their cost + the cost of the entries still there. */
  pruned_nanos: Generated<number>;
}

/**
 * A budget created at run time (admin API, `renio budgets`). Amounts in nano-units. A deleted
 * budget keeps its row (`deleted_at` set): a relay that has not seen the deletion yet decides
 * its charge as observe instead of by stale terms.
 */
export interface BudgetDefinitionTable {
  id: string;
  /** "total", "project", "key", "team", "tag" or "endUser" (a per-end-user template). */
  scope_kind: string;
  /** The project, key or team id, the tag as `name=value`, the template's project; null for "total". */
  scope_value: string | null;
  /** "total", "month" or "day". */
  period: string;
  limit_nanos: number;
  /** "strict" or "observe". */
  mode: string;
  /** 0 or 1. */
  paused: number;
  /** The cheaper model a call it cannot cover is served by; null: refuse (schema 11). */
  on_exceeded: string | null;
  created_at: number;
  updated_at: number;
  deleted_at: number | null;
}

/**
 * The alert outbox: one row per event (a budget threshold reached, a crash's pending
 * reservations), written in the transaction that caused it, delivered by each relay's
 * dispatcher. Unique per (budget_id, period, threshold): a threshold fires once per period.
 */
export interface AlertEventTable {
  id: string;
  /** "budget.threshold" | "journal.interrupted". */
  type: string;
  budget_id: string | null;
  period: string | null;
  /** Percent of the limit. */
  threshold: number | null;
  /** The id of the webhook in config it goes to. */
  webhook: string;
  /** The JSON body sent, fixed when the event is written (retries send the same bytes). */
  payload: string;
  /** "pending" | "delivered" | "failed". */
  status: string;
  attempts: number;
  /** Epoch ms. */
  created_at: number;
  /** Epoch ms: not tried again before. */
  next_attempt_at: number;
  /** Epoch ms: a dispatcher is delivering it until then (others leave it alone). */
  lease_until: number | null;
  delivered_at: number | null;
  /** Why the last attempt failed (status, timeout, connection: never a URL or secret). */
  last_error: string | null;
}

/** Key/value facts about the database itself (schema version, budget definitions version). */
export interface MetaTable {
  key: string;
  value: string;
}

/**
 * A Renio key managed through the admin API (config keys are not stored). Only a keyed hash of
 * the secret is kept, plus a short prefix for display. Rows are never deleted: a revoked key
 * stays, so its secret keeps getting "revoked" rather than "invalid".
 */
export interface ApiKeyTable {
  id: string;
  project: string;
  /** JSON array of public model names (`["*"]`: all). */
  models: string;
  /** JSON array of regions, or null for all. */
  regions: string | null;
  /** JSON object of the caller's own labels. */
  metadata: string;
  /** HMAC-SHA256 (hex) of the secret under the server's key secret. */
  secret_hash: string;
  /** The secret's first characters (non-secret), to tell keys apart. */
  secret_prefix: string;
  /** Hash of the secret replaced by the last rotation, valid until `previous_until`. */
  previous_hash: string | null;
  /** Epoch ms. */
  previous_until: number | null;
  /** Epoch ms. */
  expires_at: number | null;
  /** Epoch ms. */
  revoked_at: number | null;
  /** Epoch ms. */
  created_at: number;
  /** Epoch ms. */
  updated_at: number;
  /** The `keys_version` (renio_meta) of the write that last changed the row: relays poll for rows past theirs. */
  version: number;
}

/** One admin action: who, what, on what, and the state before and after (never a secret or hash). */
export interface AuditEventTable {
  /** Time-ordered id (UUIDv7). */
  id: string;
  /** Epoch ms. */
  at: number;
  actor: string;
  action: string;
  target: string;
  /** JSON, or null (nothing before a create). */
  before: string | null;
  /** JSON, or null (nothing after a delete). */
  after: string | null;
}

/** The answer of an idempotent admin request (rotate), replayed for the same Idempotency-Key. */
export interface AdminIdempotencyTable {
  idempotency_key: string;
  /** What the request asked (action, target, parameters): the same key with another request is refused. */
  fingerprint: string;
  /** JSON of the answer without its secret. */
  answer: string;
  /** The answer's secret, encrypted (AES-256-GCM) under a key derived from the server's key secret. */
  sealed_secret: string;
  /** Epoch ms; replays are kept 24 hours. */
  created_at: number;
}

/**
 * The hourly usage rollup (store-rollup.ts, schema 7): finished entries summed per UTC hour of
 * received_at and group. Dimensions are stored `=`-prefixed, '' for none; `t<i>`/`o<i>` count
 * the entries in bin i of the total-time and overhead histograms (latency-bins.ts).
 */
export type UsageHourTable = {
  /** Epoch ms, a multiple of an hour. */
  hour: number;
  key_id: string;
  project: string;
  model: string;
  provider: string;
  route: string;
  calls: number;
  ok: number;
  refused: number;
  errors: number;
  input_tokens: number;
  cached_input_tokens: number;
  output_tokens: number;
  cost: number;
  /** Newest received_at of the row's entries. */
  last_at: number;
} & { [bin: `t${number}` | `o${number}`]: number };

/**
 * A journal record the store refused (schema 8), kept for inspection instead of blocking the
 * records behind it. One row per entry and record kind; the record's JSON escapes every
 * character the store cannot hold.
 */
export interface JournalQuarantineTable {
  /** The journal entry the record is about. */
  entry_id: string;
  /** "admission" | "completion" | "refusal" | "unsent". */
  kind: string;
  /** The record as Renio had it (JSON). */
  record: string;
  /** The store's code (SQLSTATE, SQLite's extended code). */
  error_code: string;
  /** The store's message. */
  error: string;
  /** 1 when the record's safe form (texts escaped and bounded, bodies left out) was written to the journal instead. */
  written: number;
  /** Epoch ms. */
  at: number;
}

/** The whole database. */
export interface Database {
  journal_entry: JournalEntryTable;
  budget_usage: BudgetUsageTable;
  budget_definition: BudgetDefinitionTable;
  budget_override: BudgetOverrideTable;
  team_definition: TeamDefinitionTable;
  renio_meta: MetaTable;
  api_key: ApiKeyTable;
  audit_event: AuditEventTable;
  admin_idempotency: AdminIdempotencyTable;
  alert_event: AlertEventTable;
  usage_hour: UsageHourTable;
  journal_quarantine: JournalQuarantineTable;
}

/** A budget limit in force for a bounded window (schema 11): it ends by itself at `until`. */
export interface BudgetOverrideTable {
  /** The budget's id, or a per-end-user budget's row id (`template/end-user`). */
  budget_id: string;
  limit_nanos: number;
  /** Epoch ms. */
  until: number;
  /** Who set it (an admin token id, or `cli`). */
  actor: string;
  created_at: number;
}

/** A team created at run time (schema 11): a named group of projects. */
export interface TeamDefinitionTable {
  id: string;
  /** JSON array of project names. */
  projects: string;
  created_at: number;
}
