/**
 * What the store thread does per applied batch of the admission log (the SQLite path of
 * `renio serve`, off the request path but on the thread admissions wait behind): a batch of
 * 256 calls admitted and completed in the same batch (one row write each), and a batch of 256
 * completions of calls admitted in an earlier batch (an update each); in one transaction, as
 * the applier runs it. Entries spread over 8 keys and 4 models in the current hour (the hourly
 * rollup's groups). Reported per batch and per entry. The third task is the hourly rollup's
 * part alone (store-rollup.ts): 256 finished entries summed per hour and group and upserted,
 * in one transaction, against the same transaction doing nothing else.
 * Run: node_modules/.bin/bun bench/log-apply.bench.ts   (RENIO_BENCH_TIME_MS: time per task)
 */
import { join } from "node:path";
import process from "node:process";
import { Bench } from "tinybench";
import type { BudgetCharge } from "../src/budgets/budget-charge.ts";
import { currentRuntime } from "../src/runtime/current-runtime.ts";
import { encodeLogRecord } from "../src/journal/admission-log/admission-log-record.ts";
import { createStore } from "../src/storage/store-open.ts";
import { tempDir } from "../test/support/store-targets.ts";
import { benchStart } from "./journal-fixtures.ts";
import { Kysely } from "kysely";
import { createHotStatements } from "../src/storage/statements/hot-statements.ts";
import { addToRollup, applyRollup, newRollupDeltas } from "../src/storage/queries/store-rollup.ts";
import { migrate } from "../src/storage/store-migrations.ts";
import type { Database } from "../src/storage/store-schema.ts";
import { createSqliteDialect } from "../src/storage/dialects/store-sqlite.ts";
import { inWriteTransaction } from "../src/storage/statements/store-transaction.ts";

const BATCH = 256;
const runtime = await currentRuntime();
const time = Number(process.env.RENIO_BENCH_TIME_MS ?? 3000);
const charges: BudgetCharge[] = [{ budgetId: "total", period: "total", limit: 1e6, mode: "strict", amount: 0.001 }];
const completion = { outcome: "ok", status: 200, ttfbMs: 3, totalMs: 40, upstreamMs: 38.5, usage: { inputTokens: 10, cachedInputTokens: 0, outputTokens: 20 }, cost: 0.0001, errorCode: null, responseBody: null } as const;
const store = await createStore({ type: "sqlite", path: join(tempDir(), "renio.db") }, { durability: "process", openSqlite: runtime.openSqlite, instanceId: "bench" });

const admissions = () =>
  Array.from({ length: BATCH }, (_, i) => {
    const start = { ...benchStart(), keyId: `key-${i % 8}`, model: `model-${i % 4}` };
    return { start, line: encodeLogRecord({ admit: { start, charges, admitted: true, decidedAt: Date.now(), instanceId: "bench" } }) };
  });
const finish = (id: string) => encodeLogRecord({ finish: { kind: "complete", id, completion: { ...completion, totalMs: 20 + (id.charCodeAt(id.length - 1) % 60) }, charges, actualCost: 0.0001, finishedAt: Date.now() } });

const bench = new Bench({ name: "log apply", time, warmupTime: 300 });
bench.add(`${BATCH} admitted and completed in one batch`, async () => {
  const calls = admissions();
  await store.applyLog(calls.map((c) => `${c.line}\n${finish(c.start.id)}\n`).join(""));
});
let open: string[] = [];
bench.add(
  `${BATCH} completions of calls admitted in an earlier batch`,
  async () => {
    await store.applyLog(open.map((id) => `${finish(id)}\n`).join(""));
  },
  {
    beforeEach: async () => {
      const calls = admissions();
      await store.applyLog(calls.map((c) => `${c.line}\n`).join(""));
      open = calls.map((c) => c.start.id);
    },
  },
);
// The rollup's part alone, on its own file: sum 256 entries (in 8 groups, or each in its own), upsert them, commit; and an empty commit.
const rollupFile = createSqliteDialect({ path: join(tempDir(), "rollup.db"), durability: "process", openSqlite: runtime.openSqlite });
const rollupDb = new Kysely<Database>({ dialect: rollupFile.kysely });
await migrate(rollupDb, rollupFile);
const hot = createHotStatements(rollupDb, false);
const finished = (groups: number) => Array.from({ length: BATCH }, (_, i) => ({ received_at: Date.now(), key_id: `key-${i % groups}`, project: "bench", model: `model-${i % 4}`, provider: "mock", route: "/v1/chat/completions", outcome: "ok", total_ms: 20 + (i % 60), upstream_ms: 18.5 + (i % 60), input_tokens: 10, cached_input_tokens: 0, output_tokens: 20, cost: 0.0001 }));
for (const groups of [8, BATCH]) {
  const entries = finished(groups);
  bench.add(`hourly rollup alone: ${BATCH} entries in ${groups} groups summed and upserted, one commit`, () =>
    inWriteTransaction(rollupDb, rollupFile, async (_trx, run) => {
      const deltas = newRollupDeltas();
      for (const entry of entries) addToRollup(deltas, entry);
      await applyRollup(run, hot.rollup, deltas);
    }),
  );
}
bench.add("an empty commit (the floor of the task above)", () => inWriteTransaction(rollupDb, rollupFile, async () => undefined));

await bench.run();
console.log(`runtime ${runtime.name} ${runtime.version}; ${time} ms per task`);
console.table(
  bench.tasks.map((task) => {
    const result = task.result;
    if (!("latency" in result)) return { task: task.name, state: result.state };
    return { task: task.name, "median ms per batch": (result.latency.p50 ?? Number.NaN).toFixed(3), "µs per entry": (((result.latency.p50 ?? Number.NaN) * 1000) / BATCH).toFixed(1), samples: result.latency.samplesCount };
  }),
);
await store.close();
await rollupDb.destroy();
process.exit(0);
