import { resolve } from "node:path";
import { Kysely } from "kysely";
import type { AlertRules } from "../alerts/alert-rules.ts";
import type { StorageConfig } from "../config/config-schema.ts";
import type { SqliteDatabase } from "../runtime/runtime.ts";
import type { Store } from "./store.ts";
import type { Database } from "./store-schema.ts";
import type { StoreDialect } from "./dialects/store-dialect.ts";
import { migrate } from "./store-migrations.ts";
import { createKyselyStore } from "./store-kysely.ts";
import { createSqliteDialect } from "./dialects/store-sqlite.ts";
import { createPostgresDialect, holdInstanceLock } from "./dialects/store-postgres.ts";
import { StoreOpenError } from "../shared/store-open-error.ts";
import type { Durability } from "../journal/journal-store.ts";

/** Options of {@link createStore}. */
export interface CreateStoreOptions {
  durability: Durability;
  /** The runtime's SQLite driver (Runtime.openSqlite). */
  openSqlite: (path: string) => SqliteDatabase;
  /** SQLite: how long to wait for another process's write lock (ms, default 5000). */
  busyTimeoutMs?: number;
  /** PostgreSQL: time allowed to connect (ms, default 5000). */
  connectTimeoutMs?: number;
  /**
   * The relay process writing through this store (recorded on entries; recovery never touches
   * entries of live instances). Absent for tools such as the CLI.
   */
  instanceId?: string;
  /** The alert thresholds and webhooks in effect from the start (recovery at startup writes by them). */
  alerts?: AlertRules;
}

interface Opened {
  db: Kysely<Database>;
  dialect: StoreDialect;
  refs: number;
}

/**
 * SQLite drivers are synchronous: a second connection to the same file in this process would
 * block the event loop waiting for a lock only this loop can release. Stores on one file in
 * one process therefore share one connection (Kysely serializes its transactions).
 */
const sqliteFiles = new Map<string, Promise<Opened>>();

/**
 * How long closing a PostgreSQL store waits for its pool to end. A query sent on a connection
 * the server dropped without the client noticing (seen after an immediate server restart) never
 * settles and holds its connection, so the pool's end would wait forever; the process must
 * still exit. Records are written before this point (the ledger flushes first).
 */
const POOL_END_BOUND_MS = 5000;

/** Resolves when `work` settles or after `ms`, whichever is first. */
async function within(work: Promise<void>, ms: number): Promise<void> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  await Promise.race([work, new Promise<void>((resolve) => (timer = setTimeout(resolve, ms)))]);
  clearTimeout(timer);
}

/**
 * Opens the configured store and brings its schema up to date.
 * Every failure is a StoreOpenError whose message names the problem (print it, no stack).
 */
export async function createStore(storage: StorageConfig, options: CreateStoreOptions): Promise<Store> {
  if (storage.type === "postgres") {
    const dialect = createPostgresDialect({ url: storage.url, poolSize: storage.poolSize, durability: options.durability, connectTimeoutMs: options.connectTimeoutMs });
    const opened = await openAndMigrate(dialect);
    let releaseLock: () => Promise<void> = () => Promise.resolve();
    if (options.instanceId !== undefined) {
      try {
        releaseLock = await holdInstanceLock(storage.url, options.instanceId, options.connectTimeoutMs);
      } catch (error) {
        await opened.db.destroy().catch(() => undefined);
        throw error;
      }
    }
    const release = async () => {
      await releaseLock();
      await within(opened.db.destroy(), POOL_END_BOUND_MS);
    };
    return createKyselyStore(opened.db, dialect, options.durability, release, options.instanceId ?? null, options.alerts);
  }
  const path = resolve(storage.path);
  let pending = sqliteFiles.get(path);
  if (!pending) {
    pending = Promise.resolve().then(() =>
      openAndMigrate(createSqliteDialect({ path, durability: options.durability, openSqlite: options.openSqlite, busyTimeoutMs: options.busyTimeoutMs })),
    );
    sqliteFiles.set(path, pending);
    pending.catch(() => sqliteFiles.delete(path));
  }
  const opened = await pending;
  opened.refs++;
  const release = async () => {
    if (--opened.refs > 0) return;
    sqliteFiles.delete(path);
    await opened.db.destroy();
  };
  return createKyselyStore(opened.db, opened.dialect, options.durability, release, options.instanceId ?? null, options.alerts);
}

async function openAndMigrate(dialect: StoreDialect): Promise<Opened> {
  const db = new Kysely<Database>({ dialect: dialect.kysely });
  try {
    await migrate(db, dialect);
  } catch (error) {
    await db.destroy().catch(() => undefined);
    if (error instanceof StoreOpenError) throw error;
    throw new StoreOpenError(dialect.explainOpenError(error), { cause: error });
  }
  return { db, dialect, refs: 0 };
}
