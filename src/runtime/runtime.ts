/**
 * The Runtime seam: the only things the core needs from Bun or Deno.
 * Everything else (files, env, processes, signals) goes through `node:` modules,
 * which both runtimes provide.
 */

/** What the HTTP server hands the core for every request. */
export interface ConnectionInfo {
  /** Client IP address as seen by the socket. */
  readonly remoteAddress: string;
  /**
   * Takes the request's connection out of the server's idle timeout (a call timed by its own
   * settings); the function returned puts it back, and must run before the response's last byte
   * (later, the connection stays out of it). Absent where the server has no idle timeout.
   */
  readonly untimed?: () => () => void;
}

/** The core's request handler: Hono's `fetch` contract plus connection info. */
export type FetchHandler = (request: Request, info: ConnectionInfo) => Response | Promise<Response>;

/** Options for {@link Runtime.serve}. */
export interface ServeOptions {
  readonly fetch: FetchHandler;
  readonly hostname: string;
  /** 0 picks a free port. */
  readonly port: number;
  /** Idle timeout for client connections in seconds (0 disables it; default 120; Bun's server only). */
  readonly idleTimeoutSeconds?: number;
  /** The answer when `fetch` throws or rejects (default: the runtime's own error page). */
  readonly onError?: (error: unknown) => Response;
  /** Let other listeners (other event loops of this process) bind the same port; the kernel spreads connections over them (Linux). */
  readonly reusePort?: boolean;
}

/** A listening server. */
export interface Server {
  readonly hostname: string;
  readonly port: number;
  /** Stops accepting connections; resolves when the listener is closed. */
  stop(): Promise<void>;
}

/** A synchronous SQLite statement in the shape Kysely's SqliteDialect expects. */
export interface SqliteStatement {
  /** True when the statement returns rows. */
  readonly reader: boolean;
  all(parameters: ReadonlyArray<unknown>): unknown[];
  run(parameters: ReadonlyArray<unknown>): { changes: number | bigint; lastInsertRowid: number | bigint };
  iterate(parameters: ReadonlyArray<unknown>): IterableIterator<unknown>;
}

/** A synchronous SQLite connection in the shape Kysely's SqliteDialect expects. */
export interface SqliteDatabase {
  prepare(sql: string): SqliteStatement;
  exec(sql: string): void;
  close(): void;
}

/** Bun or Deno, behind one small interface. */
export interface Runtime {
  readonly name: "bun" | "deno";
  readonly version: string;
  /** Starts an HTTP server. */
  serve(options: ServeOptions): Promise<Server>;
  /** The `fetch` for upstream calls (`server.upstreamClient: "fetch"`, the default): the runtime's own. */
  readonly upstreamFetch: (url: string, init: RequestInit) => Promise<Response>;
  /**
   * The most requests {@link upstreamFetch} keeps in flight at once (more wait inside it, unseen);
   * undefined when it has no such cap (Deno).
   */
  readonly upstreamFetchLimit: number | undefined;
  /**
   * A `fetch` that hands on every byte of a response body cut short before the body errors
   * (`server.upstreamClient: "node-http"`). Bun's own fetch does not (node-http-fetch.ts); Deno's does.
   */
  readonly cutSafeFetch: (url: string, init: RequestInit) => Promise<Response>;
  /** Opens (creating if needed) an SQLite database file. */
  openSqlite(path: string): SqliteDatabase;
  /** Starts a worker thread serving an SQLite store (see storage/store-thread.ts). */
  storeWorker(): Worker;
  /** Starts a worker thread that serves HTTP as one more event loop (app/loop-worker.ts); undefined where the server cannot share its port. */
  readonly loopWorker: (() => Worker) | undefined;
  /** argv prefix that starts this same program again (the executable, or runtime + script). */
  selfCommand(): string[];
}
