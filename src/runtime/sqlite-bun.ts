import { Database, type Statement } from "bun:sqlite";
import type { SqliteDatabase, SqliteStatement } from "./runtime.ts";
import { createStatementCache } from "./statement-cache.ts";

type Binding = string | number | bigint | boolean | null | Uint8Array;

/** Opens (creating if needed) an SQLite file through bun:sqlite, in the shape Kysely expects. */
export function openBunSqlite(path: string): SqliteDatabase {
  const db = new Database(path, { create: true, readwrite: true });
  const statements = createStatementCache((sql) => wrap(db.prepare(sql)));
  return {
    prepare: statements.prepare,
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
