import { CompiledQuery, type Kysely, type QueryResult } from "kysely";
import type { Database } from "../store-schema.ts";
import type { StoreDialect } from "../dialects/store-dialect.ts";
import { describeError } from "../store-errors.ts";
import { CommitUnknownError } from "../../shared/store-write-errors.ts";

const COMMIT = CompiledQuery.raw("commit");
const ROLLBACK = CompiledQuery.raw("rollback");

/** Runs one compiled statement inside the current transaction. */
export type RunQuery = <R>(query: CompiledQuery<R>) => Promise<QueryResult<R>>;

/**
 * Runs `work` in one write transaction on one connection, started by `begin` (default the
 * dialect's: SQLite BEGIN IMMEDIATE, so the write lock is taken up front; PostgreSQL BEGIN, rows
 * locked by the work itself).
 * `work` gets the transaction's Kysely handle and `run`, which executes compiled statements
 * directly on synchronous drivers (SQLite), skipping Kysely's async executor per statement.
 * A COMMIT whose reply was lost (PostgreSQL) rejects with CommitUnknownError.
 */
export async function inWriteTransaction<T>(
  db: Kysely<Database>,
  dialect: StoreDialect,
  work: (trx: Kysely<Database>, run: RunQuery) => Promise<T>,
  begin: CompiledQuery = dialect.beginWrite,
): Promise<T> {
  return await db.connection().execute(async (conn) => {
    const direct = dialect.runDirect;
    const run: RunQuery = direct ? (query) => Promise.resolve(direct(query)) : (query) => conn.executeQuery(query);
    await run(begin);
    let result: T;
    try {
      result = await work(conn, run);
    } catch (error) {
      await run(ROLLBACK).catch(() => undefined);
      throw error;
    }
    try {
      await run(COMMIT);
    } catch (error) {
      // PostgreSQL: a COMMIT whose reply was lost may have been committed.
      if (dialect.commitMayHaveLanded?.(error)) throw new CommitUnknownError(describeError(error).message, { cause: error });
      // SQLite leaves the transaction open when COMMIT fails (e.g. SQLITE_BUSY, I/O error).
      await run(ROLLBACK).catch(() => undefined);
      throw error;
    }
    return result;
  });
}
