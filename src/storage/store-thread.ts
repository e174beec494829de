import type { AlertRules } from "../alerts/alert-rules.ts";
import type { StorageConfig } from "../config/config-schema.ts";
import type { SqliteDatabase } from "../runtime/runtime.ts";
import { RelayError, StoreUnavailableError, type RelayErrorCode } from "../shared/relay-error.ts";
import type { Store, StoreStats } from "./store.ts";
import { SchemaTooNewError } from "./store-errors.ts";
import { createStore } from "./store-open.ts";
import { StoreOpenError } from "../shared/store-open-error.ts";
import { RecordRejectedError } from "../shared/store-write-errors.ts";

/**
 * An SQLite store on its own thread. SQLite drivers are synchronous, so an fsync'd commit
 * would stall every request for its duration; on a worker the event loop keeps serving while
 * the commit (shared by a whole group of calls) waits for the disk.
 */

/** The names of Store's methods (every one returns a promise, so every one can cross a thread). */
type StoreMethod = { [K in keyof Store]: Store[K] extends (...args: never[]) => Promise<unknown> ? K : never }[keyof Store];

/**
 * The methods the thread proxies, both ways. The compiler rejects a Store method missing
 * here and a name that is not one.
 */
const PROXIED = {
  admitBatch: true,
  finishBatch: true,
  applyLog: true,
  recover: true,
  reconcile: true,
  ping: true,
  listJournal: true,
  budgetUsage: true,
  journalSpend: true,
  usageByGroup: true,
  usageSeries: true,
  endUserSpend: true,
  spendByDay: true,
  endUserBudgetRows: true,
  pruneJournal: true,
  listBudgets: true,
  budgetsVersion: true,
  createBudget: true,
  updateBudget: true,
  deleteBudget: true,
  listOverrides: true,
  setOverride: true,
  endOverride: true,
  listTeams: true,
  createTeam: true,
  deleteTeam: true,
  createKey: true,
  updateKey: true,
  rotateKey: true,
  revokeKey: true,
  getKey: true,
  keysChangedSince: true,
  ensureMeta: true,
  recordAudit: true,
  listAudit: true,
  setAlertRules: true,
  claimAlerts: true,
  settleAlert: true,
  listAlerts: true,
  quarantine: true,
  listQuarantine: true,
  checkBooks: true,
  close: true,
} as const satisfies Record<StoreMethod, true>;
const proxiedMethods = Object.keys(PROXIED) as StoreMethod[];
const isProxied = (method: unknown): method is StoreMethod => typeof method === "string" && Object.hasOwn(PROXIED, method);

interface Call {
  id: number;
  method: StoreMethod | "open";
  args: unknown[];
}
type Reply = { id: number; ok: true; value: unknown } | { id: number; ok: false; error: ThreadError };

/** An error as it crosses the thread boundary: its kind and what its class needs (no stack). */
export type ThreadError =
  | { kind: "SchemaTooNewError"; message: string; found: number; supported: number }
  | { kind: "StoreOpenError"; message: string }
  | { kind: "StoreUnavailableError"; message: string }
  | { kind: "RecordRejectedError"; message: string; code: string }
  /** Any other RelayError (e.g. a 400 for a bad query value). */
  | { kind: "RelayError"; message: string; status: number; code: RelayErrorCode }
  | { kind: "Error"; name: string; message: string };

/** Error kind → how the main side rebuilds it; the compiler requires one entry per kind. */
const REVIVERS: { readonly [K in ThreadError["kind"]]: (error: Extract<ThreadError, { kind: K }>) => Error } = {
  SchemaTooNewError: (error) => new SchemaTooNewError(error.found, error.supported),
  StoreOpenError: (error) => new StoreOpenError(error.message),
  StoreUnavailableError: (error) => new StoreUnavailableError(error.message),
  RecordRejectedError: (error) => new RecordRejectedError(error.code, error.message),
  RelayError: (error) => new RelayError(error.status, error.code, error.message),
  Error: (error) => Object.assign(new Error(error.message), { name: error.name }),
};

interface OpenOptions {
  durability: Store["durability"];
  busyTimeoutMs?: number;
  instanceId?: string;
  alerts?: AlertRules;
}

/** The message port both sides use: a Worker on the main side, the worker's global scope inside. */
interface Port {
  postMessage(message: unknown): void;
  onmessage: ((event: MessageEvent) => void) | null;
}

/** applyLog's lines: encoded on the main side, decoded in the thread. */
const lineEncoder = new TextEncoder();
const lineDecoder = new TextDecoder();

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
  const call = (method: Call["method"], args: unknown[], transfer?: Transferable[]): Promise<unknown> =>
    new Promise((resolve, reject) => {
      if (failed) return reject(failed);
      const id = nextId++;
      pending.set(id, { resolve, reject });
      if (transfer) worker.postMessage({ id, method, args } satisfies Call, transfer);
      else worker.postMessage({ id, method, args } satisfies Call);
    });

  try {
    await call("open", [storage, options]);
  } catch (error) {
    worker.terminate();
    throw error;
  }
  const forward = forwardingMethods(call);
  const stats: StoreStats = { admitCommits: 0, statementAdmissions: 0, finishCommits: 0 };
  let closed: Promise<void> | undefined;
  return {
    ...forward,
    backend: "sqlite",
    durability: options.durability,
    stats,
    // The batch of log lines (hundreds of KB at load) crosses as bytes whose buffer is moved,
    // not copied: a structured clone of the string cost more on the main thread (measured).
    applyLog: (lines) => {
      const bytes = lineEncoder.encode(lines);
      return call("applyLog", [bytes], [bytes.buffer]) as ReturnType<Store["applyLog"]>;
    },
    admitBatch: async (items) => {
      const admissions = await forward.admitBatch(items);
      if (items.length > 0) stats.admitCommits++;
      return admissions;
    },
    finishBatch: async (items, settle) => {
      await forward.finishBatch(items, settle);
      if (items.length > 0) stats.finishCommits++;
    },
    close: () => {
      closed ??= forward.close().finally(() => worker.terminate());
      return closed;
    },
  };
}

/** One function per proxied method, each posting its arguments as they are. */
function forwardingMethods(call: (method: StoreMethod, args: unknown[]) => Promise<unknown>): Pick<Store, StoreMethod> {
  const methods: Partial<Record<StoreMethod, (...args: unknown[]) => Promise<unknown>>> = {};
  for (const method of proxiedMethods) methods[method] = (...args) => call(method, args);
  // Each entry forwards its own method's arguments and resolves with that method's result.
  return methods as unknown as Pick<Store, StoreMethod>;
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
      } else if (!isProxied(request.method)) {
        throw new Error(`the storage thread has no method ${JSON.stringify(request.method)}`);
      } else {
        if (store === undefined) throw new Error("store is not open");
        const method = store[request.method] as (...args: unknown[]) => Promise<unknown>;
        // applyLog's lines arrive as bytes (see createThreadStore).
        const args = request.method === "applyLog" && request.args[0] instanceof Uint8Array ? [lineDecoder.decode(request.args[0])] : request.args;
        value = await method(...args);
      }
      reply({ id: request.id, ok: true, value });
    } catch (error) {
      reply({ id: request.id, ok: false, error: flattenError(error) });
    }
  };
}

/** The error as it is posted to the main side. */
export function flattenError(error: unknown): ThreadError {
  if (error instanceof SchemaTooNewError) return { kind: "SchemaTooNewError", message: error.message, found: error.found, supported: error.supported };
  if (error instanceof StoreOpenError) return { kind: "StoreOpenError", message: error.message };
  if (error instanceof StoreUnavailableError) return { kind: "StoreUnavailableError", message: error.message };
  if (error instanceof RecordRejectedError) return { kind: "RecordRejectedError", message: error.message, code: error.code };
  if (error instanceof RelayError) return { kind: "RelayError", message: error.message, status: error.status, code: error.code };
  if (error instanceof Error) return { kind: "Error", name: error.name, message: error.message };
  return { kind: "Error", name: "Error", message: String(error) };
}

/** The error rebuilt on the main side, of the class it had in the thread. */
export function reviveError(error: ThreadError): Error {
  const revive = REVIVERS[error.kind] as (error: ThreadError) => Error;
  return revive(error);
}
