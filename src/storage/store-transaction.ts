import { CompiledQuery, sql, type Kysely } from "kysely";

const COMMIT = CompiledQuery.raw("commit");
import type { Database } from "./store-schema.ts";
import type { StoreDialect } from "./store-dialect.ts";

/**
 * Runs `work` in one write transaction on one connection (SQLite: BEGIN IMMEDIATE, so the
 * write lock is taken up front; PostgreSQL: BEGIN, rows locked by the work itself).
 * `prelude` runs first, outside the transaction (e.g. SQLite's per-commit sync level).
 */
export async function inWriteTransaction<T>(
  db: Kysely<Database>,
  dialect: StoreDialect,
  work: (trx: Kysely<Database>) => Promise<T>,
  prelude?: string,
): Promise<T> {
  return await db.connection().execute(async (conn) => {
    if (prelude) await conn.executeQuery(CompiledQuery.raw(prelude));
    await conn.executeQuery(CompiledQuery.raw(dialect.beginWrite));
    let result: T;
    try {
      result = await work(conn);
    } catch (error) {
      await sql.raw("rollback").execute(conn).catch(() => undefined);
      throw error;
    }
    try {
      await conn.executeQuery(COMMIT);
    } catch (error) {
      // SQLite leaves the transaction open when COMMIT fails (e.g. SQLITE_BUSY, I/O error).
      await sql.raw("rollback").execute(conn).catch(() => undefined);
      throw error;
    }
    return result;
  });
}

/** Stable composite key of a budget row. */
export function budgetKey(budgetId: string, period: string): string {
  return `${budgetId}\u0000${period}`;
}
