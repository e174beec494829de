import type { StorageConfig } from "../config/config-schema.ts";
import type { SqliteDatabase } from "../runtime/runtime.ts";
import { RelayError, StoreUnavailableError, type RelayErrorCode } from "../shared/relay-error.ts";
import type { Store, StoreStats } from "./store.ts";
import { SchemaTooNewError, StoreOpenError } from "./store-errors.ts";
import { createStore } from "./store-open.ts";

/**
 * An SQLite store on its own thread. SQLite drivers are synchronous, so an fsync'd commit
 * would stall every request for its duration; on a worker the event loop keeps serving while
 * the commit (shared by a whole group of calls) waits for the disk.
 */

/** The Store methods that cross the thread boundary. */
type Method = "admitBatch" | "finishBatch" | "applyLog" | "recover" | "reconcile" | "ping" | "listJournal" | "budgetUsage" | "journalSpend" | "pruneJournal" | "close";

interface Call {
  id: number;
  method: Method | "open";
  args: unknown[];
}
type Reply = { id: number; ok: true; value: unknown } | { id: number; ok: false; error: ThreadError };

/** An error as it crosses the thread boundary (no stack). */
interface ThreadError {
  name: string;
  message: string;
  /** SchemaTooNewError's versions. */
  found?: number;
  supported?: number;
  /** RelayError's status and code (e.g. a 400 for a bad query value). */
  status?: number;
  code?: RelayErrorCode;
}

interface OpenOptions {
  durability: Store["durability"];
  busyTimeoutMs?: number;
  instanceId?: string;
}

/** The message port both sides use: a Worker on the main side, the worker's global scope inside. */
interface Port {
  postMessage(message: unknown): void;
  onmessage: ((event: MessageEvent) => void) | null;
}

/** Opens the store inside `worker` and returns a Store that forwards every call to it. */
export async function createThreadStore(worker: Worker, storage: StorageConfig, options: OpenOptions): Promise<Store> {
  const pending = new Map<number, { resolve: (value: unknown) => void; reject: (error: Error) => void }>();
  let nextId = 0;
  worker.onmessage = (event: MessageEvent<Reply>) => {
    const reply = event.data;
    const waiter = pending.get(reply.id);
    if (waiter === undefined) return;
    pending.delete(reply.id);
    if (reply.ok) waiter.resolve(reply.value);
    else waiter.reject(reviveError(reply.error));
  };
  let failed: Error | undefined;
  worker.onerror = (event: ErrorEvent) => {
    event.preventDefault();
    failed = new StoreOpenError(`the storage thread failed: ${event.message}`);
    for (const waiter of pending.values()) waiter.reject(failed);
    pending.clear();
  };
  const call = <T>(method: Call["method"], args: unknown[]): Promise<T> =>
    new Promise<T>((resolve, reject) => {
      if (failed) return reject(failed);
      const id = nextId++;
      pending.set(id, { resolve: resolve as (value: unknown) => void, reject });
      worker.postMessage({ id, method, args } satisfies Call);
    });

  try {
    await call("open", [storage, options]);
  } catch (error) {
    worker.terminate();
    throw error;
  }
  const stats: StoreStats = { admitCommits: 0, finishCommits: 0 };
  let closed: Promise<void> | undefined;
  return {
    backend: "sqlite",
    durability: options.durability,
    stats,
    admitBatch: async (items) => {
      const admissions = await call<Awaited<ReturnType<Store["admitBatch"]>>>("admitBatch", [items]);
      if (items.length > 0) stats.admitCommits++;
      return admissions;
    },
    finishBatch: async (items) => {
      await call("finishBatch", [items]);
      if (items.length > 0) stats.finishCommits++;
    },
    applyLog: (lines) => call("applyLog", [lines]),
    recover: (now) => call("recover", [now]),
    reconcile: (costAt, now) => call("reconcile", [costAt, now]),
    ping: () => call("ping", []),
    listJournal: (query) => call("listJournal", [query]),
    budgetUsage: (keys) => call("budgetUsage", [keys]),
    journalSpend: (range) => call("journalSpend", [range]),
    pruneJournal: (olderThan, batchSize) => call("pruneJournal", [olderThan, batchSize]),
    close: () => {
      closed ??= call("close", []).finally(() => worker.terminate()) as Promise<void>;
      return closed;
    },
  };
}

/** The worker side: opens the store with the thread's SQLite driver and answers calls. */
export function serveThreadStore(port: Port, openSqlite: (path: string) => SqliteDatabase): void {
  let store: Store | undefined;
  const reply = (message: Reply) => port.postMessage(message);
  port.onmessage = async (event: MessageEvent<Call>) => {
    const request = event.data;
    try {
      let value: unknown;
      if (request.method === "open") {
        const [storage, options] = request.args as [StorageConfig, OpenOptions];
        store = await createStore(storage, { ...options, openSqlite });
      } else {
        if (store === undefined) throw new Error("store is not open");
        const method = store[request.method] as (...args: unknown[]) => Promise<unknown>;
        value = await method(...request.args);
      }
      reply({ id: request.id, ok: true, value });
    } catch (error) {
      reply({ id: request.id, ok: false, error: flattenError(error) });
    }
  };
}

function flattenError(error: unknown): ThreadError {
  if (error instanceof SchemaTooNewError) return { name: "SchemaTooNewError", message: error.message, found: error.found, supported: error.supported };
  if (error instanceof StoreOpenError) return { name: "StoreOpenError", message: error.message };
  if (error instanceof RelayError) return { name: error.name, message: error.message, status: error.status, code: error.code };
  if (error instanceof Error) return { name: error.name, message: error.message };
  return { name: "Error", message: String(error) };
}

function reviveError(error: ThreadError): Error {
  if (error.name === "SchemaTooNewError") return new SchemaTooNewError(error.found ?? 0, error.supported ?? 0);
  if (error.name === "StoreOpenError") return new StoreOpenError(error.message);
  if (error.name === "StoreUnavailableError") return new StoreUnavailableError(error.message);
  if (error.status !== undefined && error.code !== undefined) return new RelayError(error.status, error.code, error.message);
  return Object.assign(new Error(error.message), { name: error.name });
}
