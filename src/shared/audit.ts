/** The admin audit: its records and its store port. Keys, budgets and config reloads write it; storage/ implements it. */

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

/** The admin audit: every admin action, who did it, before and after (never a secret). */
export interface AuditStore {
  /**
   * Records one admin action in its own transaction (`at` defaults to now), e.g.
   * `store.recordAudit({ actor, action: "config.reload", target: "config", before, after })`.
   * Actions that write the store should record theirs in the same transaction, as the key writes do.
   */
  recordAudit(event: Omit<AuditInput, "at"> & { readonly at?: number }): Promise<AuditEvent>;
  listAudit(query: AuditQuery): Promise<AuditPage>;
}
