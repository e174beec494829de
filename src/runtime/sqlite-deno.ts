import { DatabaseSync, type StatementSync } from "node:sqlite";
import type { SqliteDatabase, SqliteStatement } from "./runtime.ts";
import { createStatementCache } from "./statement-cache.ts";

type Binding = string | number | bigint | null | Uint8Array;

/** Opens (creating if needed) an SQLite file through node:sqlite, in the shape Kysely expects. */
export function openDenoSqlite(path: string): SqliteDatabase {
  const db = new DatabaseSync(path);
  const statements = createStatementCache((sql) => wrap(db.prepare(sql)));
  return {
    prepare: statements.prepare,
    exec: (sql: string): void => db.exec(sql),
    close: (): void => {
      statements.clear();
      db.close();
    },
  };
}

function wrap(statement: StatementSync): SqliteStatement {
  // node:sqlite rejects booleans; store them as 0/1 like SQLite itself does.
  const bind = (parameters: ReadonlyArray<unknown>): Binding[] =>
    parameters.map((value) => (typeof value === "boolean" ? (value ? 1 : 0) : (value as Binding)));
  return {
    reader: statement.columns().length > 0,
    all: (parameters) => statement.all(...bind(parameters)),
    run: (parameters) => statement.run(...bind(parameters)),
    iterate: (parameters) => statement.iterate(...bind(parameters)),
  };
}
