import { join } from "node:path";
import process from "node:process";
import pg from "pg";
import type { StorageConfig } from "../../src/config/config-schema.ts";
import { openJournalLog, type JournalLog } from "../../src/journal/admission-log/journal-log.ts";
import { claimAdmissionLog, type LogClaim } from "../../src/journal/admission-log/log-claim.ts";
import { createLogLedger } from "../../src/journal/log-ledger.ts";
import { admissionLogDir } from "../../src/journal/admission-log/log-segments.ts";
import { replayAdmissionLog } from "../../src/journal/admission-log/log-replay.ts";
import type { Ledger } from "../../src/journal/ledger.ts";
import { createSqlLedger } from "../../src/journal/sql-ledger.ts";
import { currentRuntime } from "../../src/runtime/current-runtime.ts";
import { newEntryId } from "../../src/shared/entry-id.ts";
import type { Store } from "../../src/storage/store.ts";
import { createStore } from "../../src/storage/store-open.ts";
import { createThreadStore } from "../../src/storage/store-thread.ts";
import { backends, pgExec } from "./store-targets.ts";
import type { Durability } from "../../src/journal/journal-store.ts";

/**
 * Every ledger a user can get, built the way `renio serve` builds it: the one place tests
 * construct a ledger for the ledger contract (when the constructors change, only this file
 * does). A relay on SQLite owns its file and gets the log ledger; a relay on PostgreSQL gets
 * the SQL ledger; each at either `journal.durability`. The SQL ledger on SQLite is not
 * reachable from config (serve always logs on SQLite), so it is not a kind here.
 */
export type LedgerKind = "log-fsync" | "log-process" | "postgres-fsync" | "postgres-process";

const runtime = await currentRuntime();

/** Why the PostgreSQL kind is skipped, or false when it runs. */
const pgSkip = process.env.RENIO_TEST_PG_URL ? false : "RENIO_TEST_PG_URL is not set (export RENIO_TEST_PG_URL=$(bash scripts/pg-start.sh))";

/** The kinds, with a readable name and why a kind is skipped here (false: it runs). */
export const ledgerKinds: ReadonlyArray<{ kind: LedgerKind; name: string; skip: string | false }> = [
  { kind: "log-fsync", name: `log ledger, fsync (${runtime.name})`, skip: false },
  { kind: "log-process", name: `log ledger, process (${runtime.name})`, skip: false },
  { kind: "postgres-fsync", name: `SQL ledger on PostgreSQL, fsync (${runtime.name})`, skip: pgSkip },
  { kind: "postgres-process", name: `SQL ledger on PostgreSQL, process (${runtime.name})`, skip: pgSkip },
];

/** Test-only tuning. */
export interface LedgerTuning {
  /**
   * Log ledger: records waiting to be applied beyond which new admissions wait (implies
   * `untilFlush`, so a test decides when the database catches up). The SQL ledger has no
   * backlog: each admission waits for its own commit.
   */
  maxBacklog?: number;
  /** Batched work (log ledger: applying to the database; SQL ledger: writing completions) waits for a flush or close, not a timer. */
  untilFlush?: boolean;
}

/** The database falls behind: admissions beyond `through` wait until `release`. */
export interface HeldDatabase {
  /** How many admissions still go through while it is held. */
  readonly through: number;
  /** The database catches up. */
  release(): Promise<void>;
}

/** A ledger under test and what the contract does to its storage. */
export interface TestLedger {
  readonly kind: LedgerKind;
  /** Where the ledger's database is (a relay or the CLI can open it too). */
  readonly storage: StorageConfig;
  readonly ledger: Ledger;
  /** The database under the ledger (read entries and budget rows after `ledger.flush()`). */
  readonly store: Store;
  /** Entries startup recovery marked interrupted when this ledger was opened. */
  readonly recovered: number;
  /** Makes the next admission write fail (log ledger: the log; SQL ledger: the database); resolves to a heal. */
  breakAdmissionWrite(): Promise<() => Promise<void>>;
  /** Makes the database refuse every write (as a full disk would) until the heal it resolves to. */
  refuseDatabaseWrites(): Promise<() => Promise<void>>;
  /** Holds the database back (another transaction locks the budget rows; on the log ledger, needs `maxBacklog`). */
  holdDatabase(): Promise<HeldDatabase>;
  /**
   * The process dies (nothing more of it reaches the log or the database; nothing is flushed
   * or closed), then the next relay starts on the same storage: replay, then recovery.
   */
  crashAndRestart(): Promise<TestLedger>;
  /** Runs SQL on the database under the ledger through a connection of its own (to tamper with it). */
  exec(statement: string): Promise<void>;
  /** Shuts down as serve does: closes the ledger (flushing), then releases the SQLite file. */
  close(): Promise<void>;
  /** After `close`: the next relay starts on the same storage (replay, then recovery). */
  reopen(): Promise<TestLedger>;
}

/** Opens a fresh ledger of `kind` (SQLite files in `dir`; PostgreSQL: a new database). */
export async function openTestLedger(kind: LedgerKind, dir: string, tuning: LedgerTuning = {}): Promise<TestLedger> {
  const durability: Durability = kind.endsWith("-fsync") ? "fsync" : "process";
  if (kind.startsWith("postgres-")) {
    const { storage } = await backends.find((backend) => backend.name === "postgres")!.target();
    if (storage.type !== "postgres") throw new Error("the postgres backend gave no PostgreSQL URL");
    return openSqlLedger(storage, durability, tuning);
  }
  return openLogLedger(join(dir, "renio.db"), durability, tuning);
}

/** A delay no test waits for. */
const HOURS = 3_600_000;

/** Statements making an SQLite database refuse writes to the journal and to renio_meta (readiness), and undoing it. */
const SQLITE_REFUSE = ["journal_entry", "renio_meta"].flatMap((table) =>
  ["insert", "update"].map((op) => `create trigger renio_test_refuse_${table}_${op} before ${op} on ${table} begin select raise(abort, 'the database refuses writes (test)'); end`),
);
const SQLITE_HEAL = ["journal_entry", "renio_meta"].flatMap((table) => ["insert", "update"].map((op) => `drop trigger renio_test_refuse_${table}_${op}`));

/** Runs statements on the SQLite file at `path` through a connection of its own. */
function sqliteExec(path: string, statements: readonly string[]): void {
  const db = runtime.openSqlite(path);
  try {
    db.exec("pragma busy_timeout = 5000");
    for (const statement of statements) db.exec(statement);
  } finally {
    db.close();
  }
}

async function openLogLedger(path: string, durability: Durability, tuning: LedgerTuning): Promise<TestLedger> {
  const instanceId = newEntryId();
  const logDir = admissionLogDir(path);
  const storage: StorageConfig = { type: "sqlite", path };
  // As serve: the store on its own thread, the file claimed, the previous log replayed, then recovery.
  const store = await createThreadStore(runtime.storeWorker(), storage, { durability, instanceId });
  const claim: LogClaim = claimAdmissionLog(path, runtime.openSqlite);
  await replayAdmissionLog(store, logDir);
  const recovered = await store.recover(Date.now());
  const log: JournalLog = openJournalLog(logDir, durability);
  const ledger = createLogLedger(store, log, await store.budgetUsage(), {
    instanceId,
    ...(tuning.maxBacklog === undefined ? {} : { maxBacklog: tuning.maxBacklog }),
    ...(tuning.untilFlush || tuning.maxBacklog !== undefined ? { applyDelayMs: HOURS } : {}),
  });
  const heal = (statements: readonly string[]) => () => Promise.resolve(sqliteExec(path, statements));
  return {
    kind: durability === "fsync" ? "log-fsync" : "log-process",
    storage,
    ledger,
    store,
    recovered,
    breakAdmissionWrite() {
      // The segment's file descriptor is gone: the next write fails, and the log moves on to a fresh segment.
      log.close(false);
      return Promise.resolve(() => Promise.resolve());
    },
    exec: (statement) => Promise.resolve(sqliteExec(path, [statement])),
    refuseDatabaseWrites() {
      sqliteExec(path, SQLITE_REFUSE);
      return Promise.resolve(heal(SQLITE_HEAL));
    },
    holdDatabase() {
      if (tuning.maxBacklog === undefined) throw new Error("holdDatabase on the log ledger needs maxBacklog");
      // Nothing is applied until a flush: the backlog may grow to maxBacklog + 1.
      return Promise.resolve({ through: tuning.maxBacklog + 1, release: () => ledger.flush() });
    },
    async crashAndRestart() {
      // The process is gone: its database thread ends and the OS drops its claim. Its log files
      // stay open, as a dying process's last write may still land (replay takes what is there).
      await store.close();
      claim.release();
      return openLogLedger(path, durability, tuning);
    },
    async close() {
      await ledger.close();
      claim.release();
    },
    reopen: () => openLogLedger(path, durability, tuning),
  };
}

async function openSqlLedger(storage: Extract<StorageConfig, { type: "postgres" }>, durability: Durability, tuning: LedgerTuning): Promise<TestLedger> {
  const instanceId = newEntryId();
  const store = await createStore(storage, { durability, openSqlite: runtime.openSqlite, instanceId });
  const recovered = await store.recover(Date.now());
  const ledger = createSqlLedger(store, tuning.untilFlush ? { finishDelayMs: HOURS } : {});
  const refuse = async () => {
    await pgExec(
      storage.url,
      `create function renio_test_refuse() returns trigger language plpgsql as $$ begin raise exception 'the database refuses writes (test)'; end $$;
       create trigger renio_test_refuse_entry before insert or update on journal_entry for each statement execute function renio_test_refuse();
       create trigger renio_test_refuse_meta before insert or update on renio_meta for each statement execute function renio_test_refuse();`,
    );
    return () => pgExec(storage.url, "drop function renio_test_refuse() cascade");
  };
  return {
    kind: durability === "fsync" ? "postgres-fsync" : "postgres-process",
    storage,
    ledger,
    store,
    recovered,
    breakAdmissionWrite: refuse,
    refuseDatabaseWrites: refuse,
    exec: (statement) => pgExec(storage.url, statement),
    async holdDatabase() {
      const client = new pg.Client({ connectionString: storage.url });
      await client.connect();
      await client.query("begin");
      await client.query("select * from budget_usage for update");
      return {
        through: 0,
        release: async () => {
          await client.query("commit");
          await client.end();
        },
      };
    },
    async crashAndRestart() {
      // The process is gone: its connections (and its liveness lock) end; nothing queued is written.
      await store.close();
      const next = await openSqlLedger(storage, durability, tuning);
      // What the dead process still held in memory goes nowhere (its store is closed); stop its timers.
      await ledger.close().catch(() => undefined);
      return next;
    },
    close: () => ledger.close(),
    reopen: () => openSqlLedger(storage, durability, tuning),
  };
}
