import { Kysely, sql } from "kysely";
import type { AdmitItem, Durability, FinishItem, Store, StoreStats } from "./store.ts";
import type { Database } from "./store-schema.ts";
import type { StoreDialect } from "./store-dialect.ts";
import { admitInTransaction } from "./store-admit.ts";
import { finishInTransaction, reconcileInTransaction, recoverInTransaction } from "./store-finish.ts";
import { budgetUsage, listJournal, pruneJournal } from "./store-query.ts";
import { inWriteTransaction } from "./store-transaction.ts";

/**
 * The one Store implementation: Kysely over the given dialect (migrations already applied).
 * `release` frees the database when the store closes.
 */
export function createKyselyStore(db: Kysely<Database>, dialect: StoreDialect, durability: Durability, release: () => Promise<void>): Store {
  const stats: StoreStats = { admitCommits: 0, finishCommits: 0 };
  let closed: Promise<void> | undefined;
  const write = <T>(work: (trx: Kysely<Database>) => Promise<T>): Promise<T> => inWriteTransaction(db, dialect, work);
  return {
    backend: dialect.backend,
    durability,
    stats,
    admitBatch: async (items: readonly AdmitItem[]) => {
      if (items.length === 0) return [];
      const admissions = await write((trx) => admitInTransaction(trx, items, dialect.lockRows, Date.now()));
      stats.admitCommits++;
      return admissions;
    },
    finishBatch: async (items: readonly FinishItem[]) => {
      if (items.length === 0) return;
      await write((trx) => finishInTransaction(trx, items));
      stats.finishCommits++;
    },
    recover: (now) => write((trx) => recoverInTransaction(trx, now)),
    reconcile: (costAt, now) => write((trx) => reconcileInTransaction(trx, costAt, dialect.lockRows, now)),
    ping: async () => {
      try {
        await write((trx) => sql`update renio_meta set value = value where key = 'schema_version'`.execute(trx));
        return true;
      } catch {
        return false;
      }
    },
    listJournal: (query) => listJournal(db, query),
    budgetUsage: (keys) => budgetUsage(db, keys),
    pruneJournal: (olderThan, batchSize) => pruneJournal(db, olderThan, batchSize),
    close: () => {
      closed ??= release();
      return closed;
    },
  };
}
