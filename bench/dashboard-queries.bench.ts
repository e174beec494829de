/**
 * The dashboard's queries on a journal of a million entries (SQLite): fills a throwaway file
 * with 1,000,000 entries spread over 30 days (20 keys, 8 models, 3 providers, 4 % errors,
 * 2 % refusals; 100,000 distinct end users, 3 teams, 4 tag values) in one INSERT … SELECT, then times each aggregate the /admin/dashboard/*
 * endpoints run, over the ranges the pages use. The fill goes past the store, so the hourly
 * rollup is then built from the entries (as migration 7 builds it on an upgraded store).
 * Run: node_modules/.bin/bun bench/dashboard-queries.bench.ts   (RENIO_BENCH_ROWS: entries,
 * RENIO_BENCH_RUNS: timed runs per query after one warm-up; RENIO_BENCH_DB: keep the file there)
 */
import { join } from "node:path";
import process from "node:process";
import { currentRuntime } from "../src/runtime/current-runtime.ts";
import type { Store } from "../src/storage/store.ts";
import { createStore } from "../src/storage/store-open.ts";
import { tempDir } from "../test/support/store-targets.ts";
import { Kysely } from "kysely";
import { rebuildRollup } from "../src/storage/queries/store-rollup.ts";
import { createSqliteDialect } from "../src/storage/dialects/store-sqlite.ts";
import type { Database } from "../src/storage/store-schema.ts";

const ROWS = Number(process.env.RENIO_BENCH_ROWS ?? 1_000_000);
const RUNS = Number(process.env.RENIO_BENCH_RUNS ?? 1);
const DAY = 86_400_000;
const runtime = await currentRuntime();
const path = process.env.RENIO_BENCH_DB ?? join(tempDir(), "renio.db");
const now = Date.now();
const span = 30 * DAY;

const store = await createStore({ type: "sqlite", path }, { durability: "process", openSqlite: runtime.openSqlite });
const raw = runtime.openSqlite(path);
const fillStarted = performance.now();
const present = Number((raw.prepare("select count(*) as n from journal_entry").all([])[0] as { n: number }).n);
if (present < ROWS) raw.exec(`
  with recursive n(i) as (select 0 union all select i + 1 from n where i < ${ROWS - 1})
  insert into journal_entry (id, received_at, key_id, project, route, model, provider, upstream_model, stream,
    request_bytes, client_address, finished_at, outcome, status, ttfb_ms, total_ms, upstream_ms,
    input_tokens, cached_input_tokens, output_tokens, cost, end_user, team, tags)
  select printf('e%09d', i), ${now - span} + (i * ${Math.floor(span / ROWS)}), 'key-' || (i % 20), 'project-' || (i % 5),
    '/v1/chat/completions', 'model-' || (i % 8), 'provider-' || (i % 3), 'upstream-' || (i % 8), i % 2, 800, '127.0.0.1',
    ${now - span} + (i * ${Math.floor(span / ROWS)}) + 900,
    case when i % 50 = 0 then 'refused' when i % 25 = 1 then 'upstream_error' else 'ok' end,
    case when i % 50 = 0 then 402 when i % 25 = 1 then 502 else 200 end,
    120 + (i % 300), 400 + (i % 1000), 399 + (i % 1000) - (i % 7) * 0.1,
    100 + (i % 900), i % 100, 20 + (i % 400), 0.0001 * (1 + i % 40),
    'user-' || ((i * 7919) % 100000), 'team-' || (i % 5 % 3), '[["feature","f' || (i % 4) || '"]]'
  from n`);
raw.close();
console.log(present >= ROWS ? `reusing ${present} entries in ${path}` : `filled ${ROWS} entries in ${((performance.now() - fillStarted) / 1000).toFixed(1)} s`);
if (present < ROWS) {
  // The fill wrote the journal directly, past the store: build the hourly rollup from it, as migration 7 does on an upgraded store.
  const rollupStarted = performance.now();
  const db = new Kysely<Database>({ dialect: createSqliteDialect({ path, durability: "process", openSqlite: runtime.openSqlite }).kysely });
  await rebuildRollup(db);
  await db.destroy();
  console.log(`rollup of ${ROWS} entries built in ${((performance.now() - rollupStarted) / 1000).toFixed(1)} s (what migration 7 takes on such a journal)`);
}

async function timed(name: string, run: (store: Store) => Promise<unknown>): Promise<void> {
  await run(store); // warm the page cache once
  const times: number[] = [];
  for (let i = 0; i < RUNS; i++) {
    const started = performance.now();
    await run(store);
    times.push(performance.now() - started);
  }
  times.sort((a, b) => a - b);
  const median = times[Math.floor(times.length / 2)]!;
  console.log(`${name.padEnd(52)} median ${median.toFixed(0).padStart(6)} ms   (min ${times[0]!.toFixed(0)}, max ${times[times.length - 1]!.toFixed(0)}, ${RUNS} runs)`);
}

const month = { since: now - span, until: now + 1 };
const day = { since: now - DAY, until: now + 1 };
await timed("overview: today's totals (24 h)", (s) => s.usageByGroup(day));
await timed("overview: this month's totals (30 days)", (s) => s.usageByGroup(month));
await timed("overview: series, 24 h by hour", (s) => s.usageSeries({ ...day, bucketMs: 3_600_000 }));
await timed("overview: series, 30 days by hour", (s) => s.usageSeries({ ...month, bucketMs: 3_600_000 }));
for (const by of ["key", "project", "model", "provider"] as const) {
  await timed(`usage by ${by} (30 days)`, (s) => s.usageByGroup(month, by));
}
await timed("spenders: heaviest 20 end users, today", (s) => s.endUserSpend({ since: Math.floor(now / DAY) * DAY, until: now + 1, limit: 20 }));
await timed("spenders: heaviest 20 end users, 24 h", (s) => s.endUserSpend({ ...day, limit: 20 }));
await timed("spenders: spend by project (team) per day, 30 days", (s) => s.spendByDay(month, "project"));
await timed("spenders: spend by tag per day, 7 days", (s) => s.spendByDay({ since: now - 7 * DAY, until: now + 1 }, "tags"));
await timed("spenders: spend by tag per day, 30 days", (s) => s.spendByDay(month, "tags"));
await timed("journal page, newest 100", (s) => s.listJournal({ limit: 100 }));
await timed("journal page, one key, newest 100", (s) => s.listJournal({ keyId: "key-7", limit: 100 }));
await timed("journal page, outcome upstream_error, newest 100", (s) => s.listJournal({ outcome: "upstream_error", limit: 100 }));
await store.close();
