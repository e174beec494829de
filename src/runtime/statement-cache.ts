import type { SqliteStatement } from "./runtime.ts";

/** Prepared statements kept per connection (the hot path uses a handful). */
const STATEMENT_CACHE_SIZE = 256;

/** Prepared statements of one connection, keyed by SQL. */
export interface StatementCache {
  /** The statement prepared earlier for `sql`, else a new one (the cache is emptied when full). */
  prepare(sql: string): SqliteStatement;
  /** Forgets every statement (before closing the connection). */
  clear(): void;
}

/**
 * Wraps a driver's `prepare` so each SQL text is prepared once: Kysely prepares every query it
 * runs, and the hot ones repeat the same SQL.
 */
export function createStatementCache(prepare: (sql: string) => SqliteStatement): StatementCache {
  const statements = new Map<string, SqliteStatement>();
  return {
    prepare: (sql) => {
      let statement = statements.get(sql);
      if (statement === undefined) {
        if (statements.size >= STATEMENT_CACHE_SIZE) statements.clear();
        statements.set(sql, (statement = prepare(sql)));
      }
      return statement;
    },
    clear: () => statements.clear(),
  };
}
