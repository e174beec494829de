import { randomBytes } from "node:crypto";
import { join } from "node:path";
import type { BudgetSetting, JournalSetting } from "./bench-args.ts";

/** The relay settings a benchmark ran with, as reported. */
export interface RelaySettings {
  readonly journal: JournalSetting;
  /** When one Renio ran per journal setting (the first is `journal`). */
  readonly journals?: readonly JournalSetting[];
  readonly budget: BudgetSetting;
  readonly storage: string;
}

/** Inputs for {@link benchRelayConfig}. */
export interface BenchRelayConfigInput {
  readonly mockUrl: string;
  readonly model: string;
  readonly dir: string;
  readonly journal: JournalSetting;
  readonly budget: BudgetSetting;
  /** The caller key's secret (sent as `Authorization: Bearer …`). */
  readonly secret: string;
}

/** A random caller secret for one benchmark run. */
export function benchSecret(): string {
  return `renio-bench-${randomBytes(16).toString("hex")}`;
}

/**
 * The config of the Renio under test: the out-of-process mock as its only
 * provider, one key, SQLite in `dir`, and (unless off) a large total budget.
 */
export function benchRelayConfig(input: BenchRelayConfigInput): Record<string, unknown> {
  const journalOn = input.journal !== "off";
  const budgetOn = journalOn && input.budget !== "off";
  return {
    server: { host: "127.0.0.1", port: 0, shutdownGraceMs: 2000 },
    storage: { type: "sqlite", path: join(input.dir, "renio.db") },
    journal: journalOn ? { enabled: true, durability: input.journal } : { enabled: false },
    budget: { currency: "USD", mode: input.budget === "observe" ? "observe" : "strict" },
    providers: { mock: { type: "mock", baseUrl: input.mockUrl } },
    models: { [input.model]: { provider: "mock" } },
    keys: [{ id: "bench", secret: input.secret }],
    budgets: budgetOn ? [{ id: "bench-total", scope: "total", period: "total", limit: 9_000_000, mode: input.budget }] : [],
    prices: { [input.model]: { input: 1, output: 2 } },
  };
}

/** How the report describes the relay's settings. */
export function relaySettings(journals: readonly JournalSetting[], budget: BudgetSetting): RelaySettings {
  const journal = journals[0]!;
  return { journal, ...(journals.length > 1 ? { journals } : {}), budget: journals.every((setting) => setting === "off") ? "off" : budget, storage: "sqlite (temporary directory)" };
}
