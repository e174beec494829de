import { randomBytes } from "node:crypto";
import { join } from "node:path";
import type { BenchModel, BudgetScopeSetting, BudgetSetting, EventLoopsSetting, FeatureSetting, GuardrailsSetting, JournalSetting, StorageSetting } from "./bench-args.ts";
import { renioRelayId } from "./durable-write.ts";

/** The relay settings a benchmark ran with, as reported. */
export interface RelaySettings {
  readonly journal: JournalSetting;
  /** When one Renio ran per journal setting (the first is `journal`). */
  readonly journals?: readonly JournalSetting[];
  /** When one Renio ran per model (--model list), and which of them were translated. */
  readonly models?: readonly BenchModel[];
  readonly budget: BudgetSetting;
  /** What the budget covers, when not every call (--budget-scope). */
  readonly budgetScope?: BudgetScopeSetting;
  readonly storage: string;
  /** When a Renio with guardrails ran (--guardrails), one Renio per setting, and its policy. */
  readonly guardrails?: { readonly settings: readonly GuardrailsSetting[]; readonly policy: BenchGuardrailPolicy };
}

/** The policy of a guarded Renio under test. */
export interface BenchGuardrailPolicy {
  readonly id: string;
  readonly detectors: readonly string[];
}

/** Every built-in detector (the groups `pii` and `credentials` cover all of them), on every call. */
export const BENCH_GUARDRAIL_POLICY: BenchGuardrailPolicy = { id: "bench-all-detectors", detectors: ["pii", "credentials"] };

/** Inputs for {@link benchRelayConfig}. */
export interface BenchRelayConfigInput {
  readonly mockUrl: string;
  readonly model: BenchModel;
  readonly dir: string;
  readonly journal: JournalSetting;
  readonly budget: BudgetSetting;
  /** What the budget covers (default every call). */
  readonly budgetScope?: BudgetScopeSetting;
  /** A PostgreSQL database URL to store into; absent: SQLite in `dir`. */
  readonly postgresUrl?: string;
  /** Id of the total budget (relays sharing one PostgreSQL database each charge their own). */
  readonly budgetId?: string;
  /** The caller key's secret (sent as `Authorization: Bearer …`). */
  readonly secret: string;
  /** A token for its `/metrics` (the bench reads its journal writes there). */
  readonly metricsToken?: string;
  /** Its server.upstreamClient (default: Renio's own default). */
  readonly upstreamClient?: "auto" | "socket" | "fetch";
  /** Its server.eventLoops (default: Renio's own default). */
  readonly eventLoops?: EventLoopsSetting;
  /** A policy over every call, on requests and answers, with this action (default off: no guardrails section). */
  readonly guardrails?: GuardrailsSetting;
  /** Rate limits (in memory or on Redis) or the cache on every call (default off). */
  readonly feature?: FeatureSetting;
  /** The Redis of `redis-limits` (its keys under a random prefix). */
  readonly redisUrl?: string;
}

/** Limits every bench call is checked against and none reaches: the check's cost, never a refusal. */
const BENCH_LIMITS = [{ scope: { key: "bench" }, requestsPerMinute: 1_000_000_000, tokensPerMinute: 1_000_000_000_000, concurrent: 1_000_000 }];

/** The rate-limit, Redis and cache sections of a feature setting. */
function featureSections(input: BenchRelayConfigInput): Record<string, unknown> {
  switch (input.feature ?? "off") {
    case "off":
      return {};
    case "limits":
      return { rateLimits: BENCH_LIMITS };
    case "redis-limits":
      return { redis: { url: input.redisUrl, keyPrefix: `renio-bench-${randomBytes(4).toString("hex")}:` }, rateLimits: { store: "redis", limits: BENCH_LIMITS } };
    case "cache":
      return { cache: { path: join(input.dir, "cache.db"), models: [input.model.name] } };
  }
}

/**
 * With `redis-limits`, a second key no limit applies to, on the same relay: calls with it and
 * with the limited key, interleaved call by call on one process, show what the Redis check adds
 * free of the differences between two processes and between moments of the machine. Not with a budget scoped to the
 * one bench key (its calls would skip the budget, a different path).
 */
export function uncheckedKey(input: Pick<BenchRelayConfigInput, "feature" | "budgetScope">): boolean {
  return input.feature === "redis-limits" && input.budgetScope !== "key";
}

/** The secret of the key without limits (see uncheckedKey). */
export function uncheckedSecret(secret: string): string {
  return `${secret}-unchecked`;
}

/** A random caller secret for one benchmark run. */
export function benchSecret(): string {
  return `renio-bench-${randomBytes(16).toString("hex")}`;
}

/**
 * The config of the Renio under test: the out-of-process mock as its only
 * upstream, one key, SQLite in `dir` (or the given PostgreSQL), and (unless off) a large total budget.
 * A passthrough model is served by the mock as a `mock` provider (the OpenAI
 * call is forwarded as is); a translated one by the mock's Anthropic wire as an
 * `anthropic` provider with `translate: true`, so the OpenAI call is translated
 * to Anthropic Messages and the answer back. With `guardrails` (log or redact), one policy applies
 * to every call: every built-in detector over the request and the answer.
 */
export function benchRelayConfig(input: BenchRelayConfigInput): Record<string, unknown> {
  const journalOn = input.journal !== "off";
  const budgetOn = journalOn && input.budget !== "off";
  return {
    server: {
      host: "127.0.0.1",
      port: 0,
      shutdownGraceMs: 2000,
      ...(input.metricsToken === undefined ? {} : { metricsToken: input.metricsToken }),
      ...(input.upstreamClient === undefined ? {} : { upstreamClient: input.upstreamClient }),
      ...(input.eventLoops === undefined ? {} : { eventLoops: input.eventLoops }),
    },
    storage: input.postgresUrl === undefined ? { type: "sqlite", path: join(input.dir, "renio.db") } : { type: "postgres", url: input.postgresUrl },
    journal: journalOn ? { enabled: true, durability: input.journal } : { enabled: false },
    budget: { currency: "USD", mode: input.budget === "observe" ? "observe" : "strict" },
    providers: input.model.translated
      ? { "mock-anthropic": { type: "anthropic", baseUrl: input.mockUrl, apiKey: "renio-bench-mock" } }
      : { mock: { type: "mock", baseUrl: input.mockUrl } },
    models: { [input.model.name]: input.model.translated ? { provider: "mock-anthropic", translate: true } : { provider: "mock" } },
    keys: [{ id: "bench", secret: input.secret }, ...(uncheckedKey(input) ? [{ id: "bench-unchecked", secret: uncheckedSecret(input.secret) }] : [])],
    budgets: budgetOn ? [{ id: input.budgetId ?? "bench-total", scope: benchBudgetScope(input.budgetScope ?? "total"), period: "total", limit: 9_000_000, mode: input.budget }] : [],
    prices: { [input.model.name]: { input: 1, output: 2 } },
    ...featureSections(input),
    ...(input.guardrails === undefined || input.guardrails === "off"
      ? {}
      : { guardrails: { policies: [{ id: BENCH_GUARDRAIL_POLICY.id, detectors: [...BENCH_GUARDRAIL_POLICY.detectors], request: input.guardrails, answer: input.guardrails }] } }),
  };
}

/** How the report names SQLite storage. */
export const SQLITE_STORAGE = "sqlite (temporary directory)";

/** How the report describes the relay's settings; `storages` names each storage measured (the first is `storage`). */
export function relaySettings(
  journals: readonly JournalSetting[],
  budget: BudgetSetting,
  models: readonly BenchModel[],
  storages: readonly string[] = [SQLITE_STORAGE],
  guardrails: readonly GuardrailsSetting[] = ["off"],
  budgetScope: BudgetScopeSetting = "total",
): RelaySettings {
  const journal = journals[0]!;
  const listed = models.length > 1 || models.some((model) => model.translated);
  return {
    journal,
    ...(journals.length > 1 ? { journals } : {}),
    ...(listed ? { models } : {}),
    budget: journals.every((setting) => setting === "off") ? "off" : budget,
    ...(budgetScope === "total" ? {} : { budgetScope }),
    storage: storages.join(" and "),
    ...(guardrails.some((setting) => setting !== "off") ? { guardrails: { settings: guardrails, policy: BENCH_GUARDRAIL_POLICY } } : {}),
  };
}

/** One Renio a benchmark starts (per model): its storage, journal and guardrails, report id and label, and a name for its directory and database. */
export interface RelayVariant {
  readonly storage: StorageSetting;
  readonly journal: JournalSetting;
  readonly guardrails: GuardrailsSetting;
  readonly id: string;
  readonly label: string;
  /** Empty when only one Renio runs. */
  readonly name: string;
  /** The id of the Renio identical but without guardrails, when one runs (the report sets them side by side). */
  readonly unguarded?: string;
  /** Its server.eventLoops (absent: Renio's default). */
  readonly eventLoops?: EventLoopsSetting;
}

/**
 * Each Renio once per --event-loops value (none given: as they are). With more than one value,
 * every id but the first value's and every label names its loops (`renio-off-loops-2`, "Renio off, 2 loops").
 */
export function withEventLoops(variants: readonly RelayVariant[], loops: readonly EventLoopsSetting[]): RelayVariant[] {
  if (loops.length === 0) return [...variants];
  if (loops.length === 1) return variants.map((variant) => ({ ...variant, eventLoops: loops[0] }));
  return variants.flatMap((variant) =>
    loops.map((eventLoops, index): RelayVariant => ({
      ...variant,
      eventLoops,
      id: index === 0 ? variant.id : `${variant.id}-loops-${eventLoops}`,
      label: `${variant.label}, ${eventLoops === "auto" ? "auto" : eventLoops} loop${eventLoops === 1 ? "" : "s"}`,
      name: [variant.name, `loops-${eventLoops}`].filter((part) => part !== "").join("-"),
      ...(variant.unguarded === undefined ? {} : { unguarded: index === 0 ? variant.unguarded : `${variant.unguarded}-loops-${eventLoops}` }),
    })),
  );
}

/**
 * One Renio per storage, journal and guardrails setting, in that order. Ids: `renio` alone,
 * `renio-<journal>` for a journal list, `renio-<storage>-<journal>` for a storage list; a guarded
 * Renio's id and label add its setting (`renio-guardrails-redact`, "Renio fsync, guardrails redact").
 */
export function relayVariants(storages: readonly StorageSetting[], journals: readonly JournalSetting[], guardrails: readonly GuardrailsSetting[] = ["off"]): RelayVariant[] {
  return storages.flatMap((storage) =>
    journals.flatMap((journal) => {
      const parts = [...(storages.length > 1 ? [storage] : []), ...(journals.length > 1 ? [journal] : [])];
      const id = storages.length > 1 ? renioRelayId(journal, storage) : journals.length > 1 ? renioRelayId(journal) : "renio";
      const label = ["Renio", ...parts].join(" ");
      return guardrails.map((setting): RelayVariant => {
        if (setting === "off") return { storage, journal, guardrails: setting, id, label, name: parts.join("-") };
        return {
          storage,
          journal,
          guardrails: setting,
          id: `${id}-guardrails-${setting}`,
          label: `${label}, guardrails ${setting}`,
          name: [...parts, "guardrails", setting].join("-"),
          ...(guardrails.includes("off") ? { unguarded: id } : {}),
        };
      });
    }),
  );
}

/** The header every call of the bench names its end user with, under `--budget-scope end-user`. */
export const BENCH_END_USER: readonly [string, string] = ["x-renio-end-user", "bench-user"];

function benchBudgetScope(scope: BudgetScopeSetting): unknown {
  return scope === "key" ? { key: "bench" } : scope === "end-user" ? { endUser: { project: "default" } } : "total";
}
