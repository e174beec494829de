import { mkdirSync } from "node:fs";
import { dirname, resolve } from "node:path";
import { CompiledQuery, SqliteDialect, type QueryResult } from "kysely";
import type { SqliteDatabase } from "../../runtime/runtime.ts";
import type { Durability } from "../../journal/journal-store.ts";
import type { StoreDialect } from "./store-dialect.ts";
import { describeError } from "../store-errors.ts";
import { StoreOpenError } from "../../shared/store-open-error.ts";

/** Options of {@link createSqliteDialect}. */
export interface SqliteStoreOptions {
  path: string;
  durability: Durability;
  openSqlite: (path: string) => SqliteDatabase;
  /** How long a writer waits for another process's lock (ms). */
  busyTimeoutMs?: number;
}

/**
 * Opens the SQLite file (creating its directory) in WAL mode with synchronous FULL (fsync)
 * or NORMAL (process), and wraps it as a store dialect. Throws StoreOpenError.
 */
export function createSqliteDialect(options: SqliteStoreOptions): StoreDialect {
  const path = resolve(options.path);
  try {
    mkdirSync(dirname(path), { recursive: true });
  } catch (error) {
    throw new StoreOpenError(`cannot create the directory of the SQLite database ${path}: ${describeError(error).message}`, { cause: error });
  }
  let database: SqliteDatabase;
  try {
    database = options.openSqlite(path);
  } catch (error) {
    throw new StoreOpenError(explainSqliteError(error, path), { cause: error });
  }
  try {
    database.exec(`pragma busy_timeout = ${Math.max(0, Math.trunc(options.busyTimeoutMs ?? 5000))}`);
    database.exec("pragma journal_mode = wal");
    database.exec(`pragma synchronous = ${options.durability === "fsync" ? "full" : "normal"}`);
  } catch (error) {
    database.close();
    throw new StoreOpenError(explainSqliteError(error, path), { cause: error });
  }
  return {
    backend: "sqlite",
    kysely: new SqliteDialect({ database }),
    beginWrite: CompiledQuery.raw("begin immediate"),
    beginSnapshot: CompiledQuery.raw("begin"),
    runDirect: <R>(query: CompiledQuery<R>): QueryResult<R> => {
      const statement = database.prepare(query.sql);
      if (statement.reader) return { rows: statement.all(query.parameters) as R[] };
      const { changes } = statement.run(query.parameters);
      return { rows: [], numAffectedRows: BigInt(changes) };
    },
    lockRows: false,
    migrationLock: null,
    keyOrderedTable: "without rowid",
    explainOpenError: (error) => explainSqliteError(error, path),
    rejectionCode: sqliteRejection,
  };
}

/** SQLite's result codes that refuse what a statement writes (TOOBIG, CONSTRAINT and its kinds, MISMATCH, RANGE), by their names. */
const REJECTING_CODES: ReadonlyMap<number, string> = new Map([
  [18, "SQLITE_TOOBIG"], [19, "SQLITE_CONSTRAINT"], [20, "SQLITE_MISMATCH"], [25, "SQLITE_RANGE"],
  [275, "SQLITE_CONSTRAINT_CHECK"], [787, "SQLITE_CONSTRAINT_FOREIGNKEY"], [1043, "SQLITE_CONSTRAINT_FUNCTION"], [1299, "SQLITE_CONSTRAINT_NOTNULL"],
  [1555, "SQLITE_CONSTRAINT_PRIMARYKEY"], [1811, "SQLITE_CONSTRAINT_TRIGGER"], [2067, "SQLITE_CONSTRAINT_UNIQUE"], [2579, "SQLITE_CONSTRAINT_ROWID"],
  [3091, "SQLITE_CONSTRAINT_DATATYPE"],
]);

/** The extended code of an SQLite error refusing a record (e.g. `SQLITE_CONSTRAINT_NOTNULL`), else undefined (busy, I/O, full, read-only). */
function sqliteRejection(error: unknown): string | undefined {
  if (typeof error !== "object" || error === null) return undefined;
  // bun:sqlite names the extended code `errno`, node:sqlite (Deno) `errcode`.
  const { errno, errcode } = error as { errno?: unknown; errcode?: unknown };
  const extended = typeof errno === "number" ? errno : typeof errcode === "number" ? errcode : undefined;
  if (extended === undefined || !REJECTING_CODES.has(extended & 0xff)) return undefined;
  return REJECTING_CODES.get(extended) ?? REJECTING_CODES.get(extended & 0xff);
}
/** A user-facing sentence naming what is wrong with the SQLite file. */
export function explainSqliteError(error: unknown, path: string): string {
  const { message, code } = describeError(error);
  const text = `${code} ${message}`.toLowerCase();
  if (text.includes("notadb") || text.includes("not a database") || text.includes("malformed") || text.includes("corrupt")) {
    return `the SQLite database ${path} is corrupt or not a database file (${message}); move it aside or restore a backup`;
  }
  if (text.includes("busy") || text.includes("locked")) {
    return `the SQLite database ${path} is locked by another process (${message})`;
  }
  if (text.includes("readonly") || text.includes("read-only")) {
    return `the SQLite database ${path} is read-only (${message}); Renio needs to write to it`;
  }
  if (text.includes("cantopen") || text.includes("unable to open")) {
    return `cannot open the SQLite database ${path} (${message}); check the path and permissions`;
  }
  return `cannot use the SQLite database ${path}: ${message}`;
}
