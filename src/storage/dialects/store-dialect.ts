import type { CompiledQuery, Dialect, QueryResult, RawBuilder } from "kysely";

/** What differs between backends: the Kysely Dialect and a few SQL fragments. */
export interface StoreDialect {
  readonly backend: "sqlite" | "postgres";
  readonly kysely: Dialect;
  /** Starts a write transaction that takes the write lock up front. */
  readonly beginWrite: CompiledQuery;
  /** Starts a read-only transaction whose reads all see one snapshot (PostgreSQL: repeatable read; SQLite: a deferred read transaction). */
  readonly beginSnapshot: CompiledQuery;
  /** Synchronous drivers only: runs a compiled statement directly on the connection. */
  readonly runDirect?: <R>(query: CompiledQuery<R>) => QueryResult<R>;
  /**
   * True (in SQL) when the relay instance that owns an entry is gone. Absent: every other
   * instance counts as gone (SQLite: one relay per file).
   */
  readonly ownerGone?: (instanceId: RawBuilder<unknown>) => RawBuilder<boolean>;
  /**
   * Starts a write transaction whose commit does not wait for the disk, where the backend can
   * (PostgreSQL: `begin` and `set local synchronous_commit = off` in one round trip).
   */
  readonly beginWithoutFlush?: CompiledQuery;
  /**
   * Runs a statement whose text never changes as a named prepared statement (parsed and planned
   * once per connection), in autocommit; present where a batch of admissions that all fit is
   * admitted in one statement (admit-statement.ts: PostgreSQL).
   */
  readonly runPrepared?: <R>(name: string, query: CompiledQuery<R>) => Promise<{ rows: R[] }>;
  /** Whether to lock read rows with `FOR UPDATE` (row locking backends). */
  readonly lockRows: boolean;
  /** Statement that serializes concurrent migrations inside a transaction, if needed. */
  readonly migrationLock: string | null;
  /** Ends a CREATE TABLE whose rows are stored in primary-key order, where the backend can (SQLite: `without rowid`). */
  readonly keyOrderedTable: string | null;
  /** A user-facing sentence naming why opening or migrating failed. */
  readonly explainOpenError: (error: unknown) => string;
  /** The store's own code when `error` refuses a record for what it holds (not an outage), else undefined. */
  readonly rejectionCode: (error: unknown) => string | undefined;
  /**
   * Whether a commit that failed with `error` may have been committed anyway (its reply was lost
   * with the connection); absent where a failed commit is always rolled back (SQLite, in process).
   */
  readonly commitMayHaveLanded?: (error: unknown) => boolean;
}
