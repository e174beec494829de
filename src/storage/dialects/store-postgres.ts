import pg from "pg";
import { CompiledQuery, PostgresDialect, sql } from "kysely";
import type { Durability } from "../../journal/journal-store.ts";
import type { StoreDialect } from "./store-dialect.ts";
import { describeError } from "../store-errors.ts";
import { StoreOpenError } from "../../shared/store-open-error.ts";
import { CommitUnknownError } from "../../shared/store-write-errors.ts";

/** Options of {@link createPostgresDialect}. */
export interface PostgresStoreOptions {
  url: string;
  poolSize: number;
  durability: Durability;
  /** Time allowed to connect (ms). */
  connectTimeoutMs?: number;
}

/** Advisory lock key serializing migrations of concurrently starting instances. */
const migrationLockKey = 5_265_696_309;
/** First key of the per-instance liveness locks (the second is hashtext(instance id)). */
const instanceLockSpace = 52_656_963;

const int8 = 20;
const numeric = 1700;

/**
 * A pg Pool (int8 parsed to numbers, synchronous_commit per durability) wrapped as a store
 * dialect. Throws StoreOpenError for a malformed URL; connection errors surface at migration.
 */
export function createPostgresDialect(options: PostgresStoreOptions): StoreDialect {
  const where = describeUrl(options.url);
  const pool = new pg.Pool({
    connectionString: options.url,
    max: options.poolSize,
    connectionTimeoutMillis: options.connectTimeoutMs ?? 5000,
    types: {
      getTypeParser: ((oid: number, format?: "text" | "binary") =>
        oid === int8 || oid === numeric ? (value: string) => Number(value) : pg.types.getTypeParser(oid, format)) as typeof pg.types.getTypeParser,
    },
  });
  // Clients die when the server restarts: the failing query rejects (fail closed), the pool drops
  // the client and the next query reconnects. Never let the 'error' event crash the process.
  pool.on("error", () => undefined);
  pool.on("connect", (client) => client.on("error", () => undefined));
  const synchronousCommit = options.durability === "fsync" ? "on" : "off";
  return {
    backend: "postgres",
    kysely: new PostgresDialect({
      pool,
      onCreateConnection: async (connection) => {
        await connection.executeQuery(CompiledQuery.raw(`set synchronous_commit = ${synchronousCommit}`));
      },
    }),
    beginWrite: CompiledQuery.raw("begin"),
    beginSnapshot: CompiledQuery.raw("begin isolation level repeatable read, read only"),
    // Two statements in one simple-protocol query (no parameters): one round trip.
    beginWithoutFlush: CompiledQuery.raw("begin; set local synchronous_commit = off"),
    runPrepared: async <R>(name: string, query: CompiledQuery<R>) => {
      // Connected first: a failure to connect is a write never sent, a lost reply is a commit of unknown outcome.
      const client = await pool.connect();
      try {
        const result = await client.query({ name, text: query.sql, values: query.parameters as unknown[] });
        client.release();
        return { rows: result.rows as R[] };
      } catch (error) {
        client.release(error instanceof Error ? error : true);
        if (replyLost(error)) throw new CommitUnknownError(describeError(error).message, { cause: error });
        throw error;
      }
    },
    lockRows: true,
    migrationLock: `select pg_advisory_xact_lock(${migrationLockKey})`,
    keyOrderedTable: null,
    // A live instance holds its liveness lock, so trying it fails; a dead one's is free.
    ownerGone: (instanceId) => sql<boolean>`pg_try_advisory_xact_lock(${sql.lit(instanceLockSpace)}, hashtext(${instanceId}))`,
    explainOpenError: (error) => explainPostgresError(error, where),
    rejectionCode: postgresRejection,
    commitMayHaveLanded: replyLost,
  };
}

/**
 * SQLSTATE classes of an error that refuses what a statement writes: 22 data exception (e.g.
 * 22021, a NUL in text), 23 integrity constraint, 54 program limit (e.g. an index row too
 * big), and P0001 (raised by a trigger or check the operator added).
 */
const REJECTING_CLASSES = new Set(["22", "23", "54"]);

/** The SQLSTATE of a server error refusing a record, else undefined (down, busy, or lost: not the record's fault). */
function postgresRejection(error: unknown): string | undefined {
  const code = sqlState(error);
  return code !== undefined && (REJECTING_CLASSES.has(code.slice(0, 2)) || code === "P0001") ? code : undefined;
}

/**
 * Whether the reply of a statement sent to the server may have been lost after it took effect:
 * a dropped connection (no SQLSTATE), a connection exception (class 08), the server shutting
 * down or crashing (57P01-57P03, sent as FATAL, possibly after the commit was made durable), or
 * an internal error (class XX, possibly PANIC). Any other error the server reported rolled the
 * transaction back. Told by SQLSTATE rather than severity: the severity is in the server's language.
 */
function replyLost(error: unknown): boolean {
  const code = sqlState(error);
  return code === undefined || code.startsWith("08") || code.startsWith("57P") || code.startsWith("XX");
}

/** The SQLSTATE of an error the server reported (five characters), else undefined. */
function sqlState(error: unknown): string | undefined {
  if (typeof error !== "object" || error === null) return undefined;
  const { code } = error as { code?: unknown };
  return typeof code === "string" && /^[0-9A-Z]{5}$/.test(code) ? code : undefined;
}
/** The URL without its password, as `user@host:port/database`. Throws StoreOpenError when malformed. */
export function describeUrl(url: string): string {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    throw new StoreOpenError("the PostgreSQL URL in storage.url is malformed (expected postgres://user:password@host:port/database)");
  }
  if (parsed.protocol !== "postgres:" && parsed.protocol !== "postgresql:") {
    throw new StoreOpenError("the PostgreSQL URL in storage.url must start with postgres://");
  }
  const user = parsed.username ? `${decodeURIComponent(parsed.username)}@` : "";
  return `${user}${parsed.hostname}:${parsed.port || "5432"}${parsed.pathname}`;
}

/** A user-facing sentence naming why PostgreSQL could not be used (never the password). */
export function explainPostgresError(error: unknown, where: string): string {
  const { message, code } = describeError(error);
  switch (code) {
    case "ECONNREFUSED":
      return `cannot reach PostgreSQL at ${where}: connection refused (is the server running?)`;
    case "ENOTFOUND":
    case "EAI_AGAIN":
      return `cannot reach PostgreSQL at ${where}: unknown host`;
    case "ETIMEDOUT":
    case "EHOSTUNREACH":
    case "ENETUNREACH":
      return `cannot reach PostgreSQL at ${where}: ${code}`;
    case "28P01":
    case "28000":
      return `PostgreSQL refused the login for ${where}: authentication failed (check user and password)`;
    case "3D000":
      return `PostgreSQL at ${where}: the database does not exist`;
    case "42501":
      return `PostgreSQL at ${where}: permission denied (${message})`;
  }
  if (/timeout/i.test(message)) return `cannot reach PostgreSQL at ${where}: connection timed out`;
  return `cannot use PostgreSQL at ${where}: ${message}`;
}

/**
 * Holds this instance's liveness lock for as long as the process lives (a dedicated session:
 * PostgreSQL releases it when the connection ends, e.g. when the process dies). Recovery on
 * other instances leaves the entries of a lock holder alone. If the session is lost (server
 * restart), it is re-established every second until released. Returns the release function.
 */
export async function holdInstanceLock(url: string, instanceId: string, connectTimeoutMs = 5000): Promise<() => Promise<void>> {
  let released = false;
  let client: pg.Client | undefined;
  let retry: ReturnType<typeof setTimeout> | undefined;
  const lock = async (): Promise<void> => {
    const session = new pg.Client({ connectionString: url, connectionTimeoutMillis: connectTimeoutMs });
    session.on("error", () => undefined);
    session.on("end", () => {
      if (client !== session) return;
      // An ended client's end() never settles: forget it, so releasing does not wait on it.
      client = undefined;
      if (!released) retry = setTimeout(relock, 1000);
    });
    try {
      await session.connect();
      await session.query("select pg_advisory_lock($1, hashtext($2))", [instanceLockSpace, instanceId]);
      if (released) await session.end();
      else client = session;
    } catch (error) {
      await session.end().catch(() => undefined);
      throw error;
    }
  };
  const relock = () => {
    if (released) return;
    lock().catch(() => {
      if (!released) retry = setTimeout(relock, 1000);
    });
  };
  try {
    await lock();
  } catch (error) {
    throw new StoreOpenError(explainPostgresError(error, describeUrl(url)), { cause: error });
  }
  return async () => {
    released = true;
    clearTimeout(retry);
    await client?.end().catch(() => undefined);
  };
}
