import { Database, type Statement } from "bun:sqlite";
import type { SqliteDatabase, SqliteStatement } from "./runtime.ts";

type Binding = string | number | bigint | boolean | null | Uint8Array;

/** Prepared statements kept per connection (the hot path uses a handful). */
const STATEMENT_CACHE_SIZE = 256;

/** Opens (creating if needed) an SQLite file through bun:sqlite, in the shape Kysely expects. */
export function openBunSqlite(path: string): SqliteDatabase {
  const db = new Database(path, { create: true, readwrite: true });
  const statements = new Map<string, SqliteStatement>();
  return {
    prepare: (sql: string): SqliteStatement => {
      // Kysely prepares every query it runs; the hot ones repeat the same SQL, so reuse them.
      let statement = statements.get(sql);
      if (statement === undefined) {
        if (statements.size >= STATEMENT_CACHE_SIZE) statements.clear();
        statements.set(sql, (statement = wrap(db.prepare(sql))));
      }
      return statement;
    },
    exec: (sql: string): void => {
      db.exec(sql);
    },
    close: (): void => {
      statements.clear();
      db.close();
    },
  };
}

function wrap(statement: Statement): SqliteStatement {
  const bind = (parameters: ReadonlyArray<unknown>): Binding[] => parameters as Binding[];
  return {
    reader: statement.columnNames.length > 0,
    all: (parameters) => statement.all(...bind(parameters)),
    run: (parameters) => statement.run(...bind(parameters)),
    iterate: (parameters) => statement.iterate(...bind(parameters)),
  };
}
