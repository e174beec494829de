import type { Admission, BudgetCharge } from "../budgets/budget-charge.ts";
import type { BudgetUsageReader } from "../budgets/budget-store.ts";
import type { BudgetUsage } from "../budgets/budget-usage.ts";
import type { JournalSpend } from "../budgets/spend-report.ts";
import type { JournalCompletion, JournalEntry, JournalRefusal, JournalStart } from "../shared/journal-records.ts";
import type { BooksCheck } from "../budgets/books-check.ts";

/**
 * The journal's store port: what the ledgers write (admissions decided by the database or
 * applied from the admission log, completions), what maintenance and the admin reads ask of
 * it, and its lifecycle. storage/ implements it.
 */

/** How durable a commit is: "fsync" survives power loss, "process" survives a killed process. */
export type Durability = "fsync" | "process";

/** One call to admit: its journal entry and the charges to reserve. */
export interface AdmitItem {
  start: JournalStart;
  charges: readonly BudgetCharge[];
  /** The call on a cheaper model, admitted instead when a budget that names it refuses the first (budget-downgrade.ts). */
  cheaper?: AdmitAlternative;
}

/** A call's cheaper alternative: its entry as it would start, and its charges. */
export interface AdmitAlternative {
  start: JournalStart;
  charges: readonly BudgetCharge[];
}

/**
 * A completion (settlement), a pre-admission refusal, or an admission never sent whose write
 * may have landed (`unsent`), written in batches. An `unsent` item finishes its entry, if the
 * admission landed, as refused (`store_unavailable`, cost 0) and releases what it reserved;
 * if it did not, and `fence` is set, the entry is recorded so, which keeps a commit of the
 * admission still on its way from landing later (its insert meets the id). Writing it again
 * changes nothing.
 */
export type FinishItem =
  | { kind: "complete"; id: string; completion: JournalCompletion; charges: readonly BudgetCharge[]; actualCost: number; finishedAt: number }
  | { kind: "refuse"; refusal: JournalRefusal; finishedAt: number }
  | { kind: "unsent"; start: JournalStart; finishedAt: number; fence: boolean };

/** Filters and page of {@link JournalReader.listJournal}; newest first. */
export interface JournalQuery {
  /** Epoch ms, inclusive. */
  since?: number;
  /** Epoch ms, exclusive. */
  until?: number;
  keyId?: string;
  /** The caller's x-request-id (exact match). */
  requestId?: string;
  /** One entry by its id. */
  id?: string;
  outcome?: string;
  /** Only entries on which a guardrail policy fired. */
  guardrails?: boolean;
  limit: number;
  /** `nextCursor` of the previous page; anything else rejects with RelayError 400 `invalid_request`. */
  cursor?: string;
}

/** Which entries {@link JournalReader.journalSpend} sums: received in [since, until) (epoch ms; absent: unbounded). */
export interface SpendRange {
  since?: number;
  until?: number;
  /** Also group by who the calls were for (the report by end user, team or tag). */
  by?: "end-user" | "team" | "tag";
}

/** One page of journal entries. */
export interface JournalPage {
  entries: JournalEntry[];
  /** Pass as `cursor` for the next page; null on the last page. */
  nextCursor: string | null;
}

/** Outcome of {@link StoreMaintenance.reconcile}. */
export interface ReconcileResult {
  /** Entries settled. */
  entries: number;
  /** Total amount moved from reserved to spent. */
  charged: number;
  /** Total amount released from reserved. */
  released: number;
}

/** The SQL ledger's writes (PostgreSQL): admissions decided by the database, in batches. */
export interface BatchAdmissionStore {
  /**
   * Inserts every entry and reserves every charge in ONE transaction, deciding in order:
   * a strict charge fits iff spent + reserved + amount ≤ limit; observe charges always fit.
   * A refused item is recorded with outcome "refused" and reserves nothing.
   */
  admitBatch(items: readonly AdmitItem[]): Promise<Admission[]>;
  /**
   * Completes entries (settling their charges) and records refusals, in one transaction. With
   * `settle: "soon"`, the commit need not wait for the disk where the backend can tell it so
   * (PostgreSQL: `synchronous_commit = off` for this transaction): its budget rows are unlocked
   * at once instead of after the WAL flush, and the next durable commit (any admission's) makes
   * it durable too. A crash before that loses it like a batch not yet written: its entries stay
   * unfinished, and recovery marks them interrupted for reconciliation. Default "now".
   */
  finishBatch(items: readonly FinishItem[], settle?: "now" | "soon"): Promise<void>;
}

/** The log ledger's writes (SQLite owned by one relay): admissions decided in memory, applied afterwards. */
export interface LogApplyStore {
  /**
   * Applies admission-log lines (newline-separated JSON LogRecords, in log order) in one
   * transaction: each entry inserted once, admitted charges reserved only when the entry is
   * new, completions settled once. Idempotent: applying lines again changes nothing. Returns
   * the budget rows the lines touch, as stored after them.
   */
  applyLog(lines: string): Promise<BudgetUsage[]>;
}

/** A span of time by received_at: epoch ms, `since` inclusive, `until` exclusive. */
export interface UsageRange {
  since: number;
  until: number;
}

/** What {@link JournalReader.usageByGroup} groups entries by. */
export type UsageGroupBy = "key" | "project" | "model" | "provider" | "route";

/** Totals of the entries of one group (or of all entries) received in a range. */
export interface UsageGroup {
  /** The key id, project, model, provider or route; null for entries without one (and for the all-entries total). */
  group: string | null;
  calls: number;
  ok: number;
  refused: number;
  /** Finished neither ok nor refused (upstream_error, timeout, relay_error, client_aborted, interrupted). */
  errors: number;
  inFlight: number;
  inputTokens: number;
  cachedInputTokens: number;
  outputTokens: number;
  cost: number;
  /** received_at of the group's newest entry. */
  lastAt: number | null;
  totalMsP50: number | null;
  totalMsP95: number | null;
  /** Relay overhead: total time minus upstream time. */
  overheadMsP50: number | null;
  overheadMsP95: number | null;
}

/** {@link JournalReader.usageSeries}: a range cut into buckets of `bucketMs` (a whole number of ms). */
export interface UsageSeriesQuery extends UsageRange {
  bucketMs: number;
}

/** One time bucket of {@link JournalReader.usageSeries}. */
export interface UsageBucket {
  /** Epoch ms the bucket starts at (a multiple of bucketMs). */
  at: number;
  calls: number;
  errors: number;
  refused: number;
  cost: number;
  overheadMsP50: number | null;
  overheadMsP95: number | null;
}

/** Reads of the journal and the budget rows (admin API, `renio journal`, `renio budget status`, dashboard). */
export interface JournalReader extends BudgetUsageReader {
  listJournal(query: JournalQuery): Promise<JournalPage>;
  /** Journal sums (tokens, reported and estimated cost) per UTC day, key, project and model, for the reconciliation report. */
  journalSpend(range: SpendRange): Promise<JournalSpend[]>;
  /**
   * Entries received in `range` totalled per group (`by` absent: one group, null, of all
   * entries); most calls first. `latency: false` skips the percentiles (null), a third of the work.
   */
  usageByGroup(range: UsageRange, by?: UsageGroupBy, latency?: boolean): Promise<UsageGroup[]>;
  /** Entries received in the range totalled per time bucket (buckets without entries are left out). */
  usageSeries(query: UsageSeriesQuery): Promise<UsageBucket[]>;
  /** The heaviest end users of a range (entries with an end user), dearest first. */
  endUserSpend(query: EndUserQuery): Promise<EndUserSpend[]>;
  /** Calls and cost per UTC day (days since the epoch) and project (from the hourly rollup), or per day and tag set (the entries' `tags` JSON). */
  spendByDay(range: Required<Pick<SpendRange, "since" | "until">>, by: "project" | "tags"): Promise<DaySpend[]>;
  /** A per-end-user budget's rows in one period (its end users), most used first. */
  endUserBudgetRows(templateId: string, period: string, limit: number): Promise<BudgetUsage[]>;
}

/** Which end users {@link JournalReader.endUserSpend} sums: received in [since, until). */
export interface EndUserQuery {
  since: number;
  until: number;
  project?: string;
  limit: number;
}

/** One day's calls and cost of one group. */
export interface DaySpend {
  /** Days since the epoch (UTC). */
  day: number;
  group: string | null;
  calls: number;
  cost: number;
}

/** One end user's calls and cost in a range. */
export interface EndUserSpend {
  project: string | null;
  endUser: string;
  calls: number;
  cost: number;
}

/** Work outside the request path: startup recovery, `renio budget reconcile`, retention. */
export interface StoreMaintenance {
  /** Marks entries left unfinished by a previous process `interrupted` (reconcile pending). Returns how many. */
  recover(now: number): Promise<number>;
  /** Settles entries pending reconciliation at their reserved cost, or at zero. */
  reconcile(costAt: "reserved" | "zero", now: number): Promise<ReconcileResult>;
  /** Deletes up to `batchSize` finished entries received before `olderThan`; returns how many. */
  pruneJournal(olderThan: Date, batchSize: number): Promise<number>;
}

/** What every holder of an open store may ask: is it writable, and close it. */
export interface StoreLifecycle {
  /** True when the store accepts a write right now. */
  ping(): Promise<boolean>;
  close(): Promise<void>;
}

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

/** The books' invariant, read while serving (`renio budget check`, /metrics; budgets/books-check.ts). */
export interface BooksReader {
  /** Every budget row against the journal, read in one consistent snapshot. */
  checkBooks(): Promise<BooksCheck>;
}
