import { sql, type Kysely } from "kysely";
import type { Database } from "./store-schema.ts";
import type { StoreDialect } from "./dialects/store-dialect.ts";
import { SchemaTooNewError } from "./store-errors.ts";
import { inWriteTransaction } from "./statements/store-transaction.ts";
import { OVERHEAD_BIN_COLUMNS, rebuildRollup, ROLLUP_SUMS, TOTAL_BIN_COLUMNS } from "./queries/store-rollup.ts";

/** One schema step; the dialect for steps that differ by backend. */
type Migration = (db: Kysely<Database>, dialect: StoreDialect) => Promise<void>;

/** Every schema version, in order. Static so it works inside a compiled executable. */
export const migrations: Readonly<Record<number, Migration>> = {
  1: async (db) => {
    await db.schema
      .createTable("journal_entry")
      .addColumn("id", "text", (c) => c.primaryKey())
      .addColumn("received_at", "bigint", (c) => c.notNull())
      .addColumn("request_id", "text")
      .addColumn("instance_id", "text")
      .addColumn("key_id", "text")
      .addColumn("project", "text")
      .addColumn("route", "text", (c) => c.notNull())
      .addColumn("model", "text")
      .addColumn("provider", "text")
      .addColumn("upstream_model", "text")
      .addColumn("stream", "integer", (c) => c.notNull())
      .addColumn("request_bytes", "bigint", (c) => c.notNull())
      .addColumn("client_address", "text", (c) => c.notNull())
      .addColumn("request_body", "text")
      .addColumn("finished_at", "bigint")
      .addColumn("outcome", "text", (c) => c.notNull())
      .addColumn("status", "integer")
      .addColumn("ttfb_ms", "double precision")
      .addColumn("total_ms", "double precision")
      .addColumn("upstream_ms", "double precision")
      .addColumn("input_tokens", "bigint")
      .addColumn("cached_input_tokens", "bigint")
      .addColumn("output_tokens", "bigint")
      .addColumn("reserved_cost", "double precision")
      .addColumn("reserved_charges", "text")
      .addColumn("cost", "double precision")
      .addColumn("error_code", "text")
      .addColumn("response_body", "text")
      .addColumn("reconcile", "text")
      .execute();
    await db.schema.createIndex("journal_entry_time").on("journal_entry").columns(["received_at", "id"]).execute();
    await db.schema.createIndex("journal_entry_key_time").on("journal_entry").columns(["key_id", "received_at", "id"]).execute();
    // Partial: most callers send no request id, so most rows never touch this index.
    await db.schema
      .createIndex("journal_entry_request_id")
      .on("journal_entry")
      .column("request_id")
      .where(sql.ref("request_id"), "is not", null)
      .execute();
    await db.schema.createIndex("journal_entry_outcome_time").on("journal_entry").columns(["outcome", "received_at", "id"]).execute();
    // Unfinished entries (recovery) are found through journal_entry_outcome_time (outcome
    // "started"): one index less to write on every call.
    await db.schema
      .createIndex("journal_entry_reconcile")
      .on("journal_entry")
      .column("received_at")
      .where(sql.ref("reconcile"), "=", sql.lit("pending"))
      .execute();
    await db.schema
      .createTable("budget_usage")
      .addColumn("budget_id", "text", (c) => c.notNull())
      .addColumn("period", "text", (c) => c.notNull())
      .addColumn("limit_nanos", "bigint", (c) => c.notNull())
      .addColumn("spent_nanos", "bigint", (c) => c.notNull())
      .addColumn("reserved_nanos", "bigint", (c) => c.notNull())
      .addColumn("updated_at", "bigint", (c) => c.notNull())
      .addPrimaryKeyConstraint("budget_usage_pk", ["budget_id", "period"])
      .execute();
  },
  // Budgets created at run time, and the counter relays poll to see that they changed.
  2: async (db) => {
    await db.schema
      .createTable("budget_definition")
      .addColumn("id", "text", (c) => c.primaryKey())
      .addColumn("scope_kind", "text", (c) => c.notNull())
      .addColumn("scope_value", "text")
      .addColumn("period", "text", (c) => c.notNull())
      .addColumn("limit_nanos", "bigint", (c) => c.notNull())
      .addColumn("mode", "text", (c) => c.notNull())
      .addColumn("paused", "integer", (c) => c.notNull())
      .addColumn("created_at", "bigint", (c) => c.notNull())
      .addColumn("updated_at", "bigint", (c) => c.notNull())
      .addColumn("deleted_at", "bigint")
      .execute();
    await db.insertInto("renio_meta").values({ key: BUDGET_DEFINITIONS_VERSION, value: "0" }).execute();
  },
  // Keys managed at run time, the admin audit, idempotent admin answers (one step: self-contained).
  3: async (db) => {
    await db.schema
      .createTable("api_key")
      .addColumn("id", "text", (c) => c.primaryKey())
      .addColumn("project", "text", (c) => c.notNull())
      .addColumn("models", "text", (c) => c.notNull())
      .addColumn("regions", "text")
      .addColumn("metadata", "text", (c) => c.notNull())
      .addColumn("secret_hash", "text", (c) => c.notNull().unique())
      .addColumn("secret_prefix", "text", (c) => c.notNull())
      .addColumn("previous_hash", "text")
      .addColumn("previous_until", "bigint")
      .addColumn("expires_at", "bigint")
      .addColumn("revoked_at", "bigint")
      .addColumn("created_at", "bigint", (c) => c.notNull())
      .addColumn("updated_at", "bigint", (c) => c.notNull())
      .addColumn("version", "bigint", (c) => c.notNull())
      .execute();
    await db.schema.createIndex("api_key_version").on("api_key").column("version").execute();
    await db.insertInto("renio_meta").values({ key: "keys_version", value: "0" }).onConflict((oc) => oc.column("key").doNothing()).execute();
    await db.schema
      .createTable("audit_event")
      .addColumn("id", "text", (c) => c.primaryKey())
      .addColumn("at", "bigint", (c) => c.notNull())
      .addColumn("actor", "text", (c) => c.notNull())
      .addColumn("action", "text", (c) => c.notNull())
      .addColumn("target", "text", (c) => c.notNull())
      .addColumn("before", "text")
      .addColumn("after", "text")
      .execute();
    await db.schema.createIndex("audit_event_time").on("audit_event").columns(["at", "id"]).execute();
    await db.schema.createIndex("audit_event_target_time").on("audit_event").columns(["target", "at", "id"]).execute();
    await db.schema
      .createTable("admin_idempotency")
      .addColumn("idempotency_key", "text", (c) => c.primaryKey())
      .addColumn("fingerprint", "text", (c) => c.notNull())
      .addColumn("answer", "text", (c) => c.notNull())
      .addColumn("sealed_secret", "text", (c) => c.notNull())
      .addColumn("created_at", "bigint", (c) => c.notNull())
      .execute();
  },
  // The alert outbox (store-alert-outbox.ts).
  4: async (db) => {
    await db.schema
      .createTable("alert_event")
      .addColumn("id", "text", (c) => c.primaryKey())
      .addColumn("type", "text", (c) => c.notNull())
      .addColumn("budget_id", "text")
      .addColumn("period", "text")
      .addColumn("threshold", "double precision")
      .addColumn("webhook", "text", (c) => c.notNull())
      .addColumn("payload", "text", (c) => c.notNull())
      .addColumn("status", "text", (c) => c.notNull())
      .addColumn("attempts", "integer", (c) => c.notNull())
      .addColumn("created_at", "bigint", (c) => c.notNull())
      .addColumn("next_attempt_at", "bigint", (c) => c.notNull())
      .addColumn("lease_until", "bigint")
      .addColumn("delivered_at", "bigint")
      .addColumn("last_error", "text")
      .execute();
    // Once per budget, period and threshold (journal events have none: NULLs never collide).
    await db.schema.createIndex("alert_event_threshold").unique().on("alert_event").columns(["budget_id", "period", "threshold"]).execute();
    await db.schema.createIndex("alert_event_due").on("alert_event").columns(["status", "next_attempt_at"]).execute();
    await db.schema.createIndex("alert_event_time").on("alert_event").columns(["created_at", "id"]).execute();
  },
  // The region a call was routed to, and whether its cost is an estimate (the reservation).
  5: async (db) => {
    await db.schema.alterTable("journal_entry").addColumn("region", "text").execute();
    await db.schema.alterTable("journal_entry").addColumn("cost_estimated", "integer").execute();
  },
  // Every upstream attempt of a call (JSON: provider, upstream model, status, error code, ms, cost each).
  6: async (db) => {
    await db.schema.alterTable("journal_entry").addColumn("attempts", "text").execute();
  },
  // The hourly usage rollup the dashboard reads (store-rollup.ts), filled from the entries already there.
  // Rows in key order where the backend can: a range of hours is read as one run of pages.
  7: async (db, dialect) => {
    let table = db.schema
      .createTable("usage_hour")
      .addColumn("hour", "bigint", (c) => c.notNull())
      .addColumn("key_id", "text", (c) => c.notNull())
      .addColumn("project", "text", (c) => c.notNull())
      .addColumn("model", "text", (c) => c.notNull())
      .addColumn("provider", "text", (c) => c.notNull())
      .addColumn("route", "text", (c) => c.notNull());
    for (const column of ROLLUP_SUMS) table = table.addColumn(column, column === "cost" ? "double precision" : "bigint", (c) => c.notNull());
    table = table.addColumn("last_at", "bigint", (c) => c.notNull());
    for (const column of [...TOTAL_BIN_COLUMNS, ...OVERHEAD_BIN_COLUMNS]) table = table.addColumn(column, "bigint", (c) => c.notNull());
    table = table.addPrimaryKeyConstraint("usage_hour_pk", ["hour", "key_id", "project", "model", "provider", "route"]);
    await (dialect.keyOrderedTable === null ? table : table.modifyEnd(sql.raw(dialect.keyOrderedTable))).execute();
    await rebuildRollup(db);
  },
  // Records the store refused, kept for inspection; the spend of entries deleted by retention (the books' check).
  8: async (db) => {
    await db.schema
      .createTable("journal_quarantine")
      .addColumn("entry_id", "text", (c) => c.notNull())
      .addColumn("kind", "text", (c) => c.notNull())
      .addColumn("record", "text", (c) => c.notNull())
      .addColumn("error_code", "text", (c) => c.notNull())
      .addColumn("error", "text", (c) => c.notNull())
      .addColumn("written", "integer", (c) => c.notNull())
      .addColumn("at", "bigint", (c) => c.notNull())
      .addPrimaryKeyConstraint("journal_quarantine_pk", ["entry_id", "kind"])
      .execute();
    await db.schema.createIndex("journal_quarantine_time").on("journal_quarantine").columns(["at", "entry_id"]).execute();
    await db.schema.alterTable("budget_usage").addColumn("pruned_nanos", "bigint", (c) => c.notNull().defaultTo(0)).execute();
  },
  // What guardrail policies found in a call (JSON: policy, detector, action, count, positions; never the text),
  // and the entries where they fired, by time (partial: most entries have none).
  9: async (db) => {
    await db.schema.alterTable("journal_entry").addColumn("guardrails", "text").execute();
    await db.schema
      .createIndex("journal_entry_guardrails_time")
      .on("journal_entry")
      .columns(["received_at", "id"])
      .where(sql.ref("guardrails"), "is not", null)
      .execute();
  },
  // What a call served from the response cache saved (outcome cache_hit): the original call's cost.
  10: async (db) => {
    await db.schema.alterTable("journal_entry").addColumn("saved_cost", "double precision").execute();
  },
  // Who a call is for (end user, team, tags), a budget's downgrade, overrides and run-time teams.
  11: async (db) => {
    for (const column of ["end_user", "team", "tags", "downgraded_from"]) await db.schema.alterTable("journal_entry").addColumn(column, "text").execute();
    // The heaviest end users of a day: entries with an end user, by time (partial: calls without one are not in it).
    await db.schema
      .createIndex("journal_entry_end_user_time")
      .on("journal_entry")
      .columns(["received_at", "end_user"])
      .where(sql.ref("end_user"), "is not", null)
      .execute();
    // Spend by tag over time reads only tagged entries.
    await db.schema.createIndex("journal_entry_tags_time").on("journal_entry").columns(["received_at"]).where(sql.ref("tags"), "is not", null).execute();
    await db.schema.alterTable("budget_definition").addColumn("on_exceeded", "text").execute();
    await db.schema
      .createTable("budget_override")
      .addColumn("budget_id", "text", (c) => c.primaryKey())
      .addColumn("limit_nanos", "bigint", (c) => c.notNull())
      .addColumn("until", "bigint", (c) => c.notNull())
      .addColumn("actor", "text", (c) => c.notNull())
      .addColumn("created_at", "bigint", (c) => c.notNull())
      .execute();
    await db.schema
      .createTable("team_definition")
      .addColumn("id", "text", (c) => c.primaryKey())
      .addColumn("projects", "text", (c) => c.notNull())
      .addColumn("created_at", "bigint", (c) => c.notNull())
      .execute();
  },
};

/** The renio_meta key counting changes to budget definitions (every change adds one). */
export const BUDGET_DEFINITIONS_VERSION = "budget_definitions_version";

/** The schema version this Renio writes. */
export const latestSchemaVersion = Math.max(...Object.keys(migrations).map(Number));

/**
 * Brings the schema to {@link latestSchemaVersion} in one transaction, serialized across
 * processes (SQLite write lock; PostgreSQL advisory lock). Refuses a newer schema.
 */
export async function migrate(db: Kysely<Database>, dialect: StoreDialect): Promise<number> {
  return await inWriteTransaction(db, dialect, async (conn) => {
    if (dialect.migrationLock) await sql.raw(dialect.migrationLock).execute(conn);
    await conn.schema
      .createTable("renio_meta")
      .ifNotExists()
      .addColumn("key", "text", (c) => c.primaryKey())
      .addColumn("value", "text", (c) => c.notNull())
      .execute();
    const row = await conn.selectFrom("renio_meta").select("value").where("key", "=", "schema_version").executeTakeFirst();
    const current = row ? Number(row.value) : 0;
    if (current > latestSchemaVersion) throw new SchemaTooNewError(current, latestSchemaVersion);
    for (let version = current + 1; version <= latestSchemaVersion; version++) {
      const step = migrations[version];
      // A gap would record the later version and never run the missing one: refuse it.
      if (step === undefined) throw new Error(`schema migration ${version} is missing from this build`);
      await step(conn, dialect);
    }
    // Written every time: a database Renio cannot write to fails here, at startup.
    await conn
      .insertInto("renio_meta")
      .values({ key: "schema_version", value: String(latestSchemaVersion) })
      .onConflict((oc) => oc.column("key").doUpdateSet({ value: String(latestSchemaVersion) }))
      .execute();
    return latestSchemaVersion;
  });
}
