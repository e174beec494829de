import { randomBytes } from "node:crypto";
import { join } from "node:path";
import type { BenchModel, BudgetSetting, JournalSetting } from "./bench-args.ts";

/** The relay settings a benchmark ran with, as reported. */
export interface RelaySettings {
  readonly journal: JournalSetting;
  /** When one Renio ran per journal setting (the first is `journal`). */
  readonly journals?: readonly JournalSetting[];
  /** When one Renio ran per model (--model list), and which of them were translated. */
  readonly models?: readonly BenchModel[];
  readonly budget: BudgetSetting;
  readonly storage: string;
}

/** Inputs for {@link benchRelayConfig}. */
export interface BenchRelayConfigInput {
  readonly mockUrl: string;
  readonly model: BenchModel;
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
 * upstream, one key, SQLite in `dir`, and (unless off) a large total budget.
 * A passthrough model is served by the mock as a `mock` provider (the OpenAI
 * call is forwarded as is); a translated one by the mock's Anthropic wire as an
 * `anthropic` provider with `translate: true`, so the OpenAI call is translated
 * to Anthropic Messages and the answer back.
 */
export function benchRelayConfig(input: BenchRelayConfigInput): Record<string, unknown> {
  const journalOn = input.journal !== "off";
  const budgetOn = journalOn && input.budget !== "off";
  return {
    server: { host: "127.0.0.1", port: 0, shutdownGraceMs: 2000 },
    storage: { type: "sqlite", path: join(input.dir, "renio.db") },
    journal: journalOn ? { enabled: true, durability: input.journal } : { enabled: false },
    budget: { currency: "USD", mode: input.budget === "observe" ? "observe" : "strict" },
    providers: input.model.translated
      ? { "mock-anthropic": { type: "anthropic", baseUrl: input.mockUrl, apiKey: "renio-bench-mock" } }
      : { mock: { type: "mock", baseUrl: input.mockUrl } },
    models: { [input.model.name]: input.model.translated ? { provider: "mock-anthropic", translate: true } : { provider: "mock" } },
    keys: [{ id: "bench", secret: input.secret }],
    budgets: budgetOn ? [{ id: "bench-total", scope: "total", period: "total", limit: 9_000_000, mode: input.budget }] : [],
    prices: { [input.model.name]: { input: 1, output: 2 } },
  };
}

/** How the report describes the relay's settings. */
export function relaySettings(journals: readonly JournalSetting[], budget: BudgetSetting, models: readonly BenchModel[]): RelaySettings {
  const journal = journals[0]!;
  const listed = models.length > 1 || models.some((model) => model.translated);
  return { journal, ...(journals.length > 1 ? { journals } : {}), ...(listed ? { models } : {}), budget: journals.every((setting) => setting === "off") ? "off" : budget, storage: "sqlite (temporary directory)" };
}
