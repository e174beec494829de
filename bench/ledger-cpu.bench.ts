/**
 * CPU per call of the SQLite books (journal + strict budget) outside HTTP: admit, then
 * complete, with `concurrency` calls in flight, through the log ledger and the store thread
 * `renio serve` uses; the main thread's CPU and the whole process's (the store thread, the
 * pool threads doing the log writes), per call, after everything was applied; "off" (the
 * ledger of `journal.enabled: false`) is the loop's own cost, so books = fsync − off. `upstreamMs`
 * holds each call open that long between admission and completion, as an upstream answer
 * does (0: completed at once).
 * Run: node_modules/.bin/bun bench/ledger-cpu.bench.ts [calls] [concurrency] [upstreamMs]
 */
import { join } from "node:path";
import process from "node:process";
import { setTimeout as sleep } from "node:timers/promises";
import type { BudgetCharge } from "../src/budgets/budget-charge.ts";
import { benchStart } from "./journal-fixtures.ts";
import { openJournalLog } from "../src/journal/admission-log/journal-log.ts";
import { admissionLogDir } from "../src/journal/admission-log/log-segments.ts";
import { createLogLedger } from "../src/journal/log-ledger.ts";
import { createLedgerOff } from "../src/journal/ledger-off.ts";
import type { Ledger } from "../src/journal/ledger.ts";
import { currentRuntime } from "../src/runtime/current-runtime.ts";
import type { Durability } from "../src/journal/journal-store.ts";
import { createThreadStore } from "../src/storage/store-thread.ts";
import { createProcessProbe } from "../src/bench/process-usage.ts";
import { tempDir } from "../test/support/store-targets.ts";

const runtime = await currentRuntime();
const probe = createProcessProbe(process.pid);
const calls = Number(process.argv[2] ?? 20_000);
const concurrency = Number(process.argv[3] ?? 64);
const upstreamMs = Number(process.argv[4] ?? 0);
const charges: BudgetCharge[] = [{ budgetId: "total", period: "total", limit: 1e6, mode: "strict", amount: 0.001 }];
const completion = { outcome: "ok", status: 200, ttfbMs: 3, totalMs: 4, upstreamMs: 3, usage: { inputTokens: 10, cachedInputTokens: 0, outputTokens: 20 }, cost: 0.0001, errorCode: null, responseBody: null } as const;
const threadCpu = (): number => {
  const usage = (process as unknown as { threadCpuUsage?: () => { user: number; system: number } }).threadCpuUsage?.();
  return usage === undefined ? NaN : usage.user + usage.system;
};
const processCpu = (): number => {
  const usage = process.cpuUsage();
  return usage.user + usage.system;
};

/** The ledger of a journal setting; "off" (records nothing) measures the loop itself. */
const openBooks = async (durability: Durability | "off"): Promise<Ledger> => {
  if (durability === "off") return createLedgerOff();
  const path = join(tempDir(), "renio.db");
  const store = await createThreadStore(runtime.storeWorker(), { type: "sqlite", path }, { durability, instanceId: "bench" });
  return createLogLedger(store, openJournalLog(admissionLogDir(path), durability), [{ budgetId: "total", period: "total", limit: 1e6, spent: 0, reserved: 0, remaining: 1e6 }], { instanceId: "bench", onError: (error) => console.error("ledger:", error) });
};

for (const round of [1, 2]) {
  for (const durability of ["fsync", "process", "off"] as const) {
    const ledger = await openBooks(durability);
    const run = async (count: number) => {
      let next = 0;
      const worker = async () => {
        while (next++ < count) {
          const start = benchStart();
          await ledger.admit(start, charges);
          // Let the others in before completing (a call is open while its answer streams).
          if (upstreamMs > 0) await sleep(upstreamMs);
          else await Promise.resolve();
          ledger.complete(start.id, completion, charges, 0.0001);
        }
      };
      await Promise.all(Array.from({ length: concurrency }, worker));
      await ledger.flush();
    };
    await run(2000);
    const [main0, all0, threads0] = [threadCpu(), processCpu(), probe.threadCpuSeconds()];
    await run(calls);
    const [main, all, threads] = [threadCpu() - main0, processCpu() - all0, probe.threadCpuSeconds()];
    // By thread (from /proc, 10 ms ticks: coarse), e.g. the store thread ("Worker") and the pool threads writing the log.
    const byThread = [...(threads ?? [])]
      .map(([name, seconds]) => [name, ((seconds - (threads0?.get(name) ?? 0)) * 1e6) / calls] as const)
      .filter(([, us]) => us >= 0.5)
      .map(([name, us]) => `${name} ${us.toFixed(1)}`)
      .join(", ");
    console.log(`round ${round} ${durability} c=${concurrency}${upstreamMs > 0 ? `, upstream ${upstreamMs} ms` : ""}: main thread ${(main / calls).toFixed(1)} µs, process ${(all / calls).toFixed(1)} µs per call${byThread ? ` (by thread: ${byThread})` : ""}`);
    const groups = ledger.stats().admissionGroupSizes;
    if (groups) console.log(`  log writes: ${groups.count}, ${(calls + 2000) / groups.count} calls per write`);
    await ledger.close();
  }
}
