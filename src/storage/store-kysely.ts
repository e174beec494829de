import { endUserBudgetRows, endUserSpend, projectDays, tagDays } from "./queries/store-spenders.ts";
import { endBudgetOverride, listBudgetOverrides, setBudgetOverride } from "./queries/store-budget-overrides.ts";
import { createTeam, deleteTeam, listTeams } from "./queries/store-teams.ts";
import type { Kysely } from "kysely";
import type { Store, StoreStats } from "./store.ts";
import type { Database } from "./store-schema.ts";
import type { StoreDialect } from "./dialects/store-dialect.ts";
import { admitInTransaction, budgetUsageOf, touchedRows, type BudgetRow } from "./statements/store-admit.ts";
import { admitInOneStatement, compileAdmitStatement, oneStatementRows } from "./statements/admit-statement.ts";
import { applyLogInTransaction } from "./statements/store-apply.ts";
import { createHotStatements } from "./statements/hot-statements.ts";
import { finishInTransaction, reconcileInTransaction, recoverInTransaction } from "./statements/store-finish.ts";
import { budgetUsage, journalSpend, listJournal, pruneJournal } from "./queries/store-query.ts";
import { budgetDefinitionsVersion, createBudgetDefinition, deleteBudgetDefinition, listBudgetDefinitions, updateBudgetDefinition } from "./queries/store-budget-definitions.ts";
import { usageByGroup, usageSeries } from "./queries/store-usage.ts";
import { inWriteTransaction, type RunQuery } from "./statements/store-transaction.ts";
import { insertAudit, listAudit } from "./queries/store-audit.ts";
import { createKeyIn, ensureMetaIn, getKey, keysChangedSince, revokeKeyIn, rotateKeyIn, updateKeyIn } from "./queries/store-keys.ts";
import { NO_ALERTS, type AlertRules } from "../alerts/alert-rules.ts";
import { claimInTransaction, listAlerts, settleAlert } from "./queries/store-alert-outbox.ts";
import { insertQuarantined, listQuarantined } from "./queries/store-quarantine.ts";
import { checkBooksIn } from "./queries/store-books.ts";
import { describeError } from "./store-errors.ts";
import { LogRecordError } from "../journal/admission-log/admission-log-record.ts";
import type { AdmitItem, Durability, FinishItem } from "../journal/journal-store.ts";
import { RecordRejectedError } from "../shared/store-write-errors.ts";

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
  /** The alert thresholds and webhooks in effect (see AlertOutbox.setAlertRules). */
  alerts: AlertRules = NO_ALERTS,
): Store {
  let rules = alerts;
  const stats: StoreStats = { admitCommits: 0, statementAdmissions: 0, finishCommits: 0 };
  let closed: Promise<void> | undefined;
  let pings = 0;
  const write = <T>(work: (trx: Kysely<Database>, run: RunQuery) => Promise<T>, begin = dialect.beginWrite): Promise<T> => inWriteTransaction(db, dialect, work, begin);
  const hot = createHotStatements(db, dialect.lockRows);
  const admitStatement = dialect.runPrepared && compileAdmitStatement(db);
  /** Budget rows known to exist (rows are never deleted), so admissions skip creating them. */
  const knownRows = new Set<string>();
  /** Runs a journal write; a refusal of what a record holds rejects with RecordRejectedError (the journal isolates the record). */
  const journalWrite = async <T>(work: () => Promise<T>): Promise<T> => {
    try {
      return await work();
    } catch (error) {
      const code = error instanceof LogRecordError ? "log_record" : dialect.rejectionCode(error);
      if (code === undefined) throw error;
      throw new RecordRejectedError(code, describeError(error).message, { cause: error });
    }
  };
  return {
    backend: dialect.backend,
    durability,
    stats,
    admitBatch: (items: readonly AdmitItem[]) => journalWrite(async () => {
      if (items.length === 0) return [];
      // A batch that fits as a whole in one statement where the backend can; else decided call by call.
      const prepared = dialect.runPrepared;
      const rows = prepared && oneStatementRows(items, knownRows);
      const fitting = rows && admitStatement && (await admitInOneStatement(admitStatement, prepared, items, rows, Date.now(), instanceId));
      if (fitting) stats.statementAdmissions++;
      const admissions = fitting ?? (await write((trx, run) => admitInTransaction(trx, run, items, hot, knownRows, Date.now(), instanceId)));
      stats.admitCommits++;
      for (const key of touchedRows(items)) knownRows.add(key);
      return admissions;
    }),
    finishBatch: (items: readonly FinishItem[], settle = "now") => journalWrite(async () => {
      if (items.length === 0) return;
      const begin = (settle === "soon" ? dialect.beginWithoutFlush : undefined) ?? dialect.beginWrite;
      await write((trx, run) => finishInTransaction(trx, run, items, hot, instanceId, rules), begin);
      stats.finishCommits++;
    }),
    applyLog: (lines: string) => journalWrite(async () => {
      const { touched, rows } = await write(async (trx, run) => {
        const touched = await applyLogInTransaction(trx, run, lines, hot, knownRows, instanceId, rules);
        return { touched, rows: touched.size === 0 ? [] : (await run<BudgetRow>(hot.selectBudgetRows([...touched.values()]))).rows };
      });
      for (const key of touched.keys()) knownRows.add(key);
      return rows.map(budgetUsageOf);
    }),
    quarantine: (records) => write((trx) => insertQuarantined(trx, records)),
    checkBooks: () => checkBooksIn(db, dialect),
    listQuarantine: (query) => listQuarantined(db, query),
    recover: (now) => write((trx, run) => recoverInTransaction(trx, run, hot, now, instanceId, dialect.ownerGone, rules)),
    reconcile: (costAt, now) => write((trx, run) => reconcileInTransaction(trx, run, costAt, dialect.lockRows, now, hot, rules)),
    setAlertRules: (next) => {
      rules = next;
      return Promise.resolve();
    },
    claimAlerts: (now, limit, leaseMs) => write((trx) => claimInTransaction(trx, now, limit, leaseMs, dialect.lockRows)),
    settleAlert: (id, attempt, now) => write((trx) => settleAlert(trx, id, attempt, now)),
    listAlerts: (query) => listAlerts(db, query),
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
    createKey: (key, actor) => write((trx) => createKeyIn(trx, key, actor)),
    updateKey: (id, change, actor) => write((trx) => updateKeyIn(trx, id, change, actor)),
    rotateKey: (rotation, actor) => write((trx) => rotateKeyIn(trx, rotation, actor)),
    revokeKey: (id, actor) => write((trx) => revokeKeyIn(trx, id, actor)),
    getKey: (id) => getKey(db, id),
    keysChangedSince: (version) => keysChangedSince(db, version),
    ensureMeta: (key, value) => write((trx) => ensureMetaIn(trx, key, value)),
    recordAudit: (event) => write((trx) => insertAudit(trx, { ...event, at: event.at ?? Date.now() })),
    listAudit: (query) => listAudit(db, query),
    listJournal: (query) => listJournal(db, query),
    budgetUsage: (keys) => budgetUsage(db, keys),
    journalSpend: (range) => journalSpend(db, range),
    usageByGroup: (range, by, latency) => usageByGroup(db, range, by, latency),
    usageSeries: (query) => usageSeries(db, query),
    endUserSpend: (query) => endUserSpend(db, query),
    spendByDay: (range, by) => (by === "project" ? projectDays(db, range) : tagDays(db, range)),
    endUserBudgetRows: (templateId, period, limit) => endUserBudgetRows(db, templateId, period, limit),
    pruneJournal: (olderThan, batchSize) => write((trx, run) => pruneJournal(trx, run, hot, olderThan, batchSize)),
    listBudgets: () => listBudgetDefinitions(db),
    budgetsVersion: () => budgetDefinitionsVersion(db),
    createBudget: (budget) => write((trx) => createBudgetDefinition(trx, budget, Date.now())),
    updateBudget: (id, change) => write((trx) => updateBudgetDefinition(trx, id, change, Date.now(), dialect.lockRows)),
    deleteBudget: (id) => write((trx) => deleteBudgetDefinition(trx, id, Date.now(), dialect.lockRows)),
    listOverrides: () => listBudgetOverrides(db, Date.now()),
    setOverride: (override) => write((trx) => setBudgetOverride(trx, override)),
    endOverride: (budgetId) => write((trx) => endBudgetOverride(trx, budgetId, Date.now())),
    listTeams: () => listTeams(db),
    createTeam: (team) => write((trx) => createTeam(trx, team, Date.now())),
    deleteTeam: (id) => write((trx) => deleteTeam(trx, id)),
    close: () => {
      closed ??= release();
      return closed;
    },
  };
}
