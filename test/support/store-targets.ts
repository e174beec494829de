import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import process from "node:process";
import pg from "pg";
import type { StorageConfig } from "../../src/config/config-schema.ts";
import { currentRuntime } from "../../src/runtime/current-runtime.ts";
import type { SqliteDatabase } from "../../src/runtime/runtime.ts";
import type { Store } from "../../src/storage/store.ts";
import { createStore } from "../../src/storage/store-open.ts";
import { createThreadStore } from "../../src/storage/store-thread.ts";
import { testPostgresUrl } from "./postgres.ts";
import type { Durability } from "../../src/journal/journal-store.ts";

/** A fresh, empty database of one backend. */
export interface StoreTarget {
  readonly storage: StorageConfig;
  /** Opens a Store on this database (as relay instance `instanceId`, when given). */
  open(durability?: Durability, instanceId?: string): Promise<Store>;
  /** Runs SQL outside any Store (to tamper with the database). */
  exec(statement: string): Promise<void>;
}

/** A backend the contract suite runs against. */
export interface Backend {
  readonly name: string;
  target(): Promise<StoreTarget>;
}

const runtime = await currentRuntime();

/** The runtime's SQLite driver, tracking every connection it opens (tests reach into them). */
export const sqliteConnections: SqliteDatabase[] = [];
export function openSqlite(path: string): SqliteDatabase {
  const db = runtime.openSqlite(path);
  sqliteConnections.push(db);
  return db;
}

const dirs: string[] = [];
process.on("exit", () => dirs.forEach((dir) => rmSync(dir, { recursive: true, force: true })));

/** Temporary directory removed at exit. */
export function tempDir(): string {
  const dir = mkdtempSync(join(tmpdir(), "renio-store-"));
  dirs.push(dir);
  return dir;
}

const sqlite: Backend = {
  name: `sqlite (${runtime.name})`,
  target: () => {
    const storage: StorageConfig = { type: "sqlite", path: join(tempDir(), "renio.db") };
    return Promise.resolve({
      storage,
      open: (durability: Durability = "fsync", instanceId?: string) => createStore(storage, { durability, openSqlite, busyTimeoutMs: 2000, instanceId }),
      exec: (statement: string) => {
        const db = runtime.openSqlite(storage.path);
        try {
          db.exec("pragma busy_timeout = 2000");
          db.exec(statement);
        } finally {
          db.close();
        }
        return Promise.resolve();
      },
    });
  },
};

/** SQLite on a worker thread, as `renio serve` runs it (every call crosses the thread boundary). */
const sqliteThread: Backend = {
  name: `sqlite on a worker thread (${runtime.name})`,
  target: async () => {
    const target = await sqlite.target();
    return {
      ...target,
      open: (durability: Durability = "fsync", instanceId?: string) =>
        createThreadStore(runtime.storeWorker(), target.storage, { durability, busyTimeoutMs: 2000, instanceId }),
    };
  },
};

let databases = 0;

/** Runs one statement on PostgreSQL at `url`. */
export async function pgExec(url: string, statement: string): Promise<void> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    await client.query(statement);
  } finally {
    await client.end();
  }
}

/** This module instance's part of its database names. */
const RUN = Math.random().toString(36).slice(2, 8);

const postgres: Backend = {
  name: "postgres",
  target: async () => {
    const base = testPostgresUrl();
    // Deno may load this module once per test file in one process: a random part keeps the names apart.
    const name = `renio_t${process.pid}_${RUN}_${++databases}`;
    await pgExec(base, `create database ${name}`);
    const url = new URL(base);
    url.pathname = `/${name}`;
    const storage: StorageConfig = { type: "postgres", url: url.toString(), poolSize: 10 };
    return {
      storage,
      open: (durability: Durability = "fsync", instanceId?: string) => createStore(storage, { durability, openSqlite, instanceId }),
      exec: (statement: string) => pgExec(storage.url, statement),
    };
  },
};

/** Every backend available in this runtime. */
export const backends: readonly Backend[] = [sqlite, sqliteThread, postgres];
