import { resolve } from "node:path";
import type { BudgetTerms } from "../budgets/budget-definition.ts";
import { alertRulesOf } from "../alerts/alert-rules.ts";
import type { Config } from "../config/config-schema.ts";
import type { Runtime } from "../runtime/runtime.ts";
import { newEntryId } from "../shared/entry-id.ts";
import { createStore } from "../storage/store-open.ts";
import { createThreadStore } from "../storage/store-thread.ts";
import type { Store } from "../storage/store.ts";
import type { QuarantinedRecord } from "../journal/journal-store.ts";
import { startRetention } from "../journal/journal-retention.ts";
import { openJournalLog } from "../journal/admission-log/journal-log.ts";
import type { Ledger } from "../journal/ledger.ts";
import { createLedgerOff } from "../journal/ledger-off.ts";
import { claimAdmissionLog, type LogClaim } from "../journal/admission-log/log-claim.ts";
import { createLogLedger } from "../journal/log-ledger.ts";
import { replayAdmissionLog } from "../journal/admission-log/log-replay.ts";
import { admissionLogDir } from "../journal/admission-log/log-segments.ts";
import { createSqlLedger } from "../journal/sql-ledger.ts";

/** How often a relay on PostgreSQL recovers entries of sibling relays that died meanwhile. */
const RECOVERY_SWEEP_MS = 30_000;

/** The ledger a relay's config asks for, and the store behind it. */
export interface OpenedLedger {
  readonly ledger: Ledger;
  /** The store (none with `journal.enabled: false`). */
  readonly store: Store | undefined;
  /** How many entries a previous process left unfinished (marked interrupted at startup). */
  readonly recovered: number;
  /** Stops retention and the recovery sweep, closes the ledger (flushing what it holds) and gives up the SQLite file. */
  close(): Promise<void>;
}

/** Options of {@link openLedger}. */
export interface OpenLedgerOptions {
  /** Told about failed admission-log writes and database applies (the relay goes on, failing closed). */
  onError?: (error: unknown) => void;
  /** Told about every journal record the database refused, kept in the quarantine instead. */
  onQuarantine?: (record: QuarantinedRecord) => void;
  /** Terms in force of stored budgets (the admission log's book reads them when it decides; see createLogLedger). */
  budgetTerms?: (budgetId: string) => BudgetTerms | undefined;
}

/**
 * Opens the journal for a relay: the store, then the ledger.
 * - `journal.enabled: false`: no store; a ledger that records nothing.
 * - SQLite: the store on its own thread; this relay claims the file, replays what the previous
 *   process logged but had not applied, recovers its unfinished entries, and decides
 *   admissions in memory, written ahead to the admission log (log-ledger.ts).
 * - PostgreSQL: the store in this thread; recovery at startup and every 30 s (sibling relays
 *   may die while this one runs); admissions committed in the database (sql-ledger.ts).
 * With `journal.retentionDays`, old entries are pruned until close.
 */
export async function openLedger(config: Config, runtime: Runtime, options: OpenLedgerOptions = {}): Promise<OpenedLedger> {
  if (!config.journal.enabled) return { ledger: createLedgerOff(), store: undefined, recovered: 0, close: () => Promise.resolve() };
  // This process's identity in the journal: recovery never touches the entries of a live instance.
  const instanceId = newEntryId();
  const { durability, retentionDays } = config.journal;
  const storage = config.storage;
  // Recovery below may already write a `journal.interrupted` alert.
  const alerts = alertRulesOf(config);
  let store: Store;
  let ledger: Ledger;
  let recovered: number;
  let claim: LogClaim | undefined;
  let sweep: ReturnType<typeof setInterval> | undefined;
  if (storage.type === "sqlite") {
    store = await createThreadStore(runtime.storeWorker(), storage, { durability, instanceId, alerts });
    const databasePath = resolve(storage.path);
    const logDir = admissionLogDir(databasePath);
    try {
      claim = claimAdmissionLog(databasePath, runtime.openSqlite);
      await replayAdmissionLog(store, logDir, options.onQuarantine);
      recovered = await store.recover(Date.now());
    } catch (error) {
      claim?.release();
      await store.close();
      throw error;
    }
    ledger = createLogLedger(store, openJournalLog(logDir, durability), await store.budgetUsage(), {
      instanceId,
      onError: options.onError,
      onQuarantine: options.onQuarantine,
      budgetTerms: options.budgetTerms,
    });
  } else {
    store = await createStore(storage, { durability, instanceId, openSqlite: runtime.openSqlite, alerts });
    recovered = await store.recover(Date.now());
    const swept = store;
    sweep = setInterval(() => void swept.recover(Date.now()).catch(() => undefined), RECOVERY_SWEEP_MS);
    ledger = createSqlLedger(store, { onError: options.onError, onQuarantine: options.onQuarantine });
  }
  const retention = new AbortController();
  if (retentionDays !== undefined) void startRetention(store, retentionDays, retention.signal);
  return {
    ledger,
    store,
    recovered,
    async close() {
      retention.abort();
      clearInterval(sweep);
      try {
        await ledger.close();
      } finally {
        claim?.release();
      }
    },
  };
}
