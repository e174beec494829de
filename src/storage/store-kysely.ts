import type { Kysely } from "kysely";
import type { AdmitItem, Durability, FinishItem, Store, StoreStats } from "./store.ts";
import type { Database } from "./store-schema.ts";
import type { StoreDialect } from "./store-dialect.ts";
import { admitInTransaction, budgetUsageOf, touchedRows, type BudgetRow } from "./store-admit.ts";
import { applyLogInTransaction } from "./store-apply.ts";
import { createHotStatements } from "./hot-statements.ts";
import { finishInTransaction, reconcileInTransaction, recoverInTransaction } from "./store-finish.ts";
import { budgetUsage, listJournal, pruneJournal } from "./store-query.ts";
import { usageByGroup, usageSeries } from "./store-usage.ts";
import { inWriteTransaction, type RunQuery } from "./store-transaction.ts";

/**
 * The one Store implementation: Kysely over the given dialect (migrations already applied).
 * `release` frees the database when the store closes.
 */
export function createKyselyStore(
  db: Kysely<Database>,
  dialect: StoreDialect,
  durability: Durability,
  release: () => Promise<void>,
  /** The relay process writing through this store; null for tools (CLI). */
  instanceId: string | null,
): Store {
  const stats: StoreStats = { admitCommits: 0, finishCommits: 0 };
  let closed: Promise<void> | undefined;
  let pings = 0;
  const write = <T>(work: (trx: Kysely<Database>, run: RunQuery) => Promise<T>): Promise<T> => inWriteTransaction(db, dialect, work);
  const hot = createHotStatements(db, dialect.lockRows);
  /** Budget rows known to exist (rows are never deleted), so admissions skip creating them. */
  const knownRows = new Set<string>();
  return {
    backend: dialect.backend,
    durability,
    stats,
    admitBatch: async (items: readonly AdmitItem[]) => {
      if (items.length === 0) return [];
      const admissions = await write((trx, run) => admitInTransaction(trx, run, items, hot, knownRows, Date.now(), instanceId));
      stats.admitCommits++;
      for (const key of touchedRows(items)) knownRows.add(key);
      return admissions;
    },
    finishBatch: async (items: readonly FinishItem[]) => {
      if (items.length === 0) return;
      await write((_trx, run) => finishInTransaction(run, items, hot, instanceId));
      stats.finishCommits++;
    },
    applyLog: async (lines: string) => {
      const { touched, rows } = await write(async (trx, run) => {
        const touched = await applyLogInTransaction(trx, run, lines, hot, knownRows, instanceId);
        return { touched, rows: touched.size === 0 ? [] : (await run<BudgetRow>(hot.selectBudgetRows([...touched.values()]))).rows };
      });
      for (const key of touched.keys()) knownRows.add(key);
      return rows.map(budgetUsageOf);
    },
    recover: (now) => write((trx) => recoverInTransaction(trx, now, instanceId, dialect.ownerGone)),
    reconcile: (costAt, now) => write((trx, run) => reconcileInTransaction(trx, run, costAt, dialect.lockRows, now, hot)),
    ping: async () => {
      try {
        // The value must change: SQLite skips writing a row rewritten with identical content,
        // so a no-op update would report ready while the WAL cannot be written.
        const value = `${Date.now()}.${++pings}`;
        await write((trx) =>
          trx.insertInto("renio_meta").values({ key: "ping", value }).onConflict((oc) => oc.column("key").doUpdateSet({ value })).execute(),
        );
        return true;
      } catch {
        return false;
      }
    },
    listJournal: (query) => listJournal(db, query),
    budgetUsage: (keys) => budgetUsage(db, keys),
    usageByGroup: (range, by, latency) => usageByGroup(db, range, by, latency),
    usageSeries: (query) => usageSeries(db, query),
    pruneJournal: (olderThan, batchSize) => pruneJournal(db, olderThan, batchSize),
    close: () => {
      closed ??= release();
      return closed;
    },
  };
}
