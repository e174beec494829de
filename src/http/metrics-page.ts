import type { BudgetUsage } from "../budgets/budget-usage.ts";
import type { BudgetConfig } from "../config/config-schema.ts";
import type { GuardrailCount } from "../guardrails/guardrail-metrics.ts";
import type { Ledger } from "../journal/ledger.ts";
import type { SlotState } from "../relay/call-slots.ts";
import type { RateLimitState } from "../limits/rate-limiter.ts";
import type { RateStoreStats } from "../limits/shared-rate-limiter.ts";
import type { CacheCounts } from "../cache/response-cache.ts";
import { openFileCount, openFileLimit } from "../runtime/open-files.ts";
import type { TargetStatus } from "../routing/target-status.ts";
import type { ExportStats } from "../observe/span-exporter.ts";
import type { CallMetrics } from "../observe/call-metrics.ts";
import { family, histogramSamples, labelText, moneySample, sample } from "../observe/prom-text.ts";
import { toNanos } from "../shared/money.ts";
import { writeJournalHealth } from "./journal-metrics.ts";
import type { BooksCheck } from "../budgets/books-check.ts";
import { writeLoops, type LoopFigures } from "./loop-metrics.ts";

/** What a scrape reads. */
/** The histogram of admissions per journal write: its `_count` is the writes made (`renio bench` reads it). */
export const ADMISSION_GROUP_SIZE_METRIC = "renio_store_admission_group_size";

export interface MetricsSources {
  readonly calls: CallMetrics;
  /** Calls forwarded and not yet ended. */
  readonly inFlight: () => number;
  /** Calls holding a slot, waiting for one, and the limits (absent: none shown). */
  readonly slots?: () => SlotState;
  /** The most upstream requests the runtime's fetch keeps in flight (Bun's), when calls may go through it. */
  readonly upstreamFetchLimit?: number;
  readonly ledger: Ledger;
  readonly budgets: readonly BudgetConfig[];
  /** The config's `budget.mode`, for budgets without their own. */
  readonly defaultMode: NonNullable<BudgetConfig["mode"]>;
  /** The span exporter's counts (absent: tracing off, none shown). */
  readonly traces?: () => ExportStats;
  /** The rate limits in force, as they stand (absent: none shown). */
  readonly rateLimits?: () => readonly RateLimitState[];
  /** How the shared rate-limit store (Redis) has fared (absent: limits in memory, none shown). */
  readonly rateStore?: RateStoreStats;
  /** The response cache's counts (absent: no cache, none shown). */
  readonly cache?: CacheCounts;
  /** Every target's circuit, as it stands (absent: none shown). */
  readonly targets?: () => readonly TargetStatus[];
  /** What guardrail policies found so far (absent: none shown). */
  readonly guardrails?: () => readonly GuardrailCount[];
  /** How long a scrape waits for the store (readiness, budget rows) before reporting it down (ms, default 1000). */
  readonly storeWaitMs?: number;
  /** `journal.maxLagMs`: the journal is behind beyond it. */
  readonly journalMaxLagMs: number;
  /** The last check of the books (absent: none yet, or checks off). */
  readonly books?: () => BooksCheck | undefined;
  /** The event loops serving HTTP (absent: none shown). */
  readonly loops?: () => readonly LoopFigures[];
}

/**
 * The whole /metrics page. A scrape never fails because the store does: the store's answers
 * are awaited at most storeWaitMs, and a store that does not answer shows as
 * `renio_store_up 0` (budgets then come from memory where the ledger keeps them, else are left out).
 */
export async function metricsPage(sources: MetricsSources): Promise<string> {
  const { ledger } = sources;
  const waitMs = sources.storeWaitMs ?? 1000;
  const [ready, budgets] = await Promise.all([
    within(ledger.ready(), waitMs, false),
    within(ledger.budgetUsage(sources.budgets, new Date()), waitMs, null),
  ]);
  const stats = ledger.stats();
  const out: string[] = [];
  sources.calls.write(out);

  family(out, "renio_in_flight_calls", "gauge", "Calls forwarded upstream and not yet ended.");
  sample(out, "renio_in_flight_calls", "", sources.inFlight());
  const slots = sources.slots?.();
  if (slots) writeSlots(out, slots);
  if (sources.upstreamFetchLimit !== undefined) {
    family(out, "renio_upstream_requests_limit", "gauge", "The most upstream requests the runtime's fetch keeps in flight at once (Bun: BUN_CONFIG_MAX_HTTP_REQUESTS); more would wait inside it.");
    sample(out, "renio_upstream_requests_limit", "", sources.upstreamFetchLimit);
  }
  writeOpenFiles(out);
  const loops = sources.loops?.();
  if (loops) writeLoops(out, loops);

  family(out, "renio_store_up", "gauge", "1 when the store takes writes (the relay admits calls), 0 when it does not.");
  sample(out, "renio_store_up", "", ready && !stats.failing ? 1 : 0);
  family(out, "renio_store_admission_write_seconds", "histogram", "Time of one admission write (admission log write or database commit), shared by its group.");
  if (stats.admissionWriteSeconds) histogramSamples(out, "renio_store_admission_write_seconds", "", stats.admissionWriteSeconds);
  family(out, ADMISSION_GROUP_SIZE_METRIC, "histogram", "Admissions written together in one write (group commit).");
  if (stats.admissionGroupSizes) histogramSamples(out, ADMISSION_GROUP_SIZE_METRIC, "", stats.admissionGroupSizes);
  family(out, "renio_store_backlog", "gauge", "Journal records waiting to be written to the database.");
  sample(out, "renio_store_backlog", "", stats.backlog);
  family(out, "renio_store_apply_lag_seconds", "gauge", "How long the oldest waiting record has waited.");
  sample(out, "renio_store_apply_lag_seconds", "", stats.applyLagMs / 1000);
  writeJournalHealth(out, stats, sources.journalMaxLagMs, sources.books?.());

  if (budgets !== null) writeBudgets(out, budgets, sources);
  const traces = sources.traces?.();
  if (traces) writeTraceCounts(out, traces);
  const limits = sources.rateLimits?.() ?? [];
  if (limits.length > 0) writeRateLimits(out, limits);
  if (sources.rateStore) writeRateStore(out, sources.rateStore);
  if (sources.cache) writeCache(out, sources.cache);
  const targets = sources.targets?.() ?? [];
  if (targets.length > 0) writeTargets(out, targets);
  const guardrails = sources.guardrails?.() ?? [];
  if (guardrails.length > 0) writeGuardrails(out, guardrails);
  return out.join("\n") + "\n";
}

/** The shared rate-limit store: up or not, and what this relay did while it was not. */
function writeRateStore(out: string[], stats: RateStoreStats): void {
  family(out, "renio_rate_limit_store_up", "gauge", "1 when the shared rate-limit store (Redis) answered this relay's last round trip, 0 when it did not.");
  sample(out, "renio_rate_limit_store_up", "", stats.up ? 1 : 0);
  const counters = [
    ["renio_rate_limit_store_failures_total", "Round trips to the shared rate-limit store that failed (no answer in time, or no connection).", stats.failures],
    ["renio_rate_limit_store_fallbacks_total", "Calls decided in memory at this relay's share because the store did not answer (onStoreDown: local).", stats.fallbacks],
    ["renio_rate_limit_store_refusals_total", "Calls refused with 503 because the store did not answer (onStoreDown: refuse).", stats.refusals],
  ] as const;
  for (const [name, help, value] of counters) {
    family(out, name, "counter", help);
    sample(out, name, "", value);
  }
}

/** The response cache: lookups by result, the hit ratio, answers stored, what hits saved. */
function writeCache(out: string[], stats: CacheCounts): void {
  family(out, "renio_cache_lookups_total", "counter", "Calls by what the response cache did: hit (served from it), miss (sent, maybe stored), bypass (not cached).");
  sample(out, "renio_cache_lookups_total", labelText([["result", "hit"]]), stats.hits);
  sample(out, "renio_cache_lookups_total", labelText([["result", "miss"]]), stats.misses);
  sample(out, "renio_cache_lookups_total", labelText([["result", "bypass"]]), stats.bypasses);
  family(out, "renio_cache_hit_ratio", "gauge", "Hits over lookups (hits and misses) since the relay started.");
  sample(out, "renio_cache_hit_ratio", "", stats.hits + stats.misses === 0 ? 0 : stats.hits / (stats.hits + stats.misses));
  family(out, "renio_cache_stored_total", "counter", "Answers stored in the response cache.");
  sample(out, "renio_cache_stored_total", "", stats.stored);
  family(out, "renio_cache_errors_total", "counter", "Cache lookups and writes its store did not answer (a failed lookup is a miss).");
  sample(out, "renio_cache_errors_total", "", stats.errors);
  family(out, "renio_cache_saved_cost", "counter", "What the answers served from the cache cost when they were first paid for (in the budget currency, `budget.currency`).");
  sample(out, "renio_cache_saved_cost", "", stats.savedCost);
}

/** Calls served and waiting, and their limits. */
function writeSlots(out: string[], slots: SlotState): void {
  const gauges = [
    ["renio_concurrent_calls", "Calls being served (from arrival to end; a stream until its last byte).", slots.active],
    ["renio_concurrent_calls_limit", "The most calls served at once (server.maxConcurrentCalls).", slots.limits.maxConcurrentCalls],
    ["renio_queued_calls", "Calls waiting for a free slot.", slots.queued],
    ["renio_queued_calls_limit", "The most calls that wait at once (server.maxQueuedCalls); more get 503 overloaded.", slots.limits.maxQueuedCalls],
  ] as const;
  for (const [name, help, value] of gauges) {
    family(out, name, "gauge", help);
    sample(out, name, "", value);
  }
}

/** The process's open files (client and upstream connections included) and its limit (Linux). */
function writeOpenFiles(out: string[]): void {
  const open = openFileCount();
  const limit = openFileLimit();
  if (open !== undefined) {
    family(out, "process_open_fds", "gauge", "Number of open file descriptors.");
    sample(out, "process_open_fds", "", open);
  }
  if (limit !== undefined && Number.isFinite(limit.soft)) {
    family(out, "process_max_fds", "gauge", "Maximum number of open file descriptors.");
    sample(out, "process_max_fds", "", limit.soft);
  }
}

/** Limit, spent, reserved and remaining of each configured budget in its current period. */
function writeBudgets(out: string[], rows: readonly BudgetUsage[], sources: MetricsSources): void {
  const modes = new Map(sources.budgets.map((budget) => [budget.id, budget.mode ?? sources.defaultMode]));
  const labels = rows.map((row) => labelText([["budget", row.budgetId], ["period", row.period], ["mode", modes.get(row.budgetId)]]));
  const gauges = [
    ["renio_budget_limit", "The budget's limit in its current period (budget currency).", "limit"],
    ["renio_budget_spent", "Settled spend in the budget's current period.", "spent"],
    ["renio_budget_reserved", "Reserved for calls in flight in the budget's current period.", "reserved"],
    ["renio_budget_remaining", "Limit minus spent minus reserved (negative for an overspent observe budget).", "remaining"],
  ] as const;
  for (const [name, help, field] of gauges) {
    family(out, name, "gauge", help);
    rows.forEach((row, i) => moneySample(out, name, labels[i]!, toNanos(row[field])));
  }
}

/** `promise`'s value, or `fallback` when it rejects or takes longer than `ms`. */
function within<T, F>(promise: Promise<T>, ms: number, fallback: F): Promise<T | F> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const late = new Promise<F>((resolve) => (timer = setTimeout(() => resolve(fallback), ms)));
  return Promise.race([promise.catch(() => fallback), late]).finally(() => clearTimeout(timer));
}

/** Each rate limit's configured size and what fits now (this instance's state). */
function writeRateLimits(out: string[], states: readonly RateLimitState[]): void {
  const labels = states.map((state) => labelText([["scope", state.scope], ["id", state.id], ["kind", state.kind]]));
  family(out, "renio_rate_limit", "gauge", "A configured rate limit: requests or tokens per minute, or concurrent calls.");
  states.forEach((state, i) => sample(out, "renio_rate_limit", labels[i]!, state.limit));
  family(out, "renio_rate_limit_remaining", "gauge", "What fits now under the limit: requests or tokens, or free concurrency slots (this relay instance).");
  states.forEach((state, i) => sample(out, "renio_rate_limit_remaining", labels[i]!, state.remaining));
}

/** Each target's cool-down state and calls in flight (this relay instance). */
function writeTargets(out: string[], targets: readonly TargetStatus[]): void {
  const labels = targets.map((target) => labelText([["provider", target.provider], ["upstream_model", target.upstreamModel]]));
  family(out, "renio_target_cooling_down", "gauge", "1 while the target is skipped after repeated failures (circuit open), 0 while in use or due its probe.");
  targets.forEach((target, i) => sample(out, "renio_target_cooling_down", labels[i]!, target.state === "open" ? 1 : 0));
  family(out, "renio_target_in_flight", "gauge", "Upstream attempts in flight on the target.");
  targets.forEach((target, i) => sample(out, "renio_target_in_flight", labels[i]!, target.inFlight));
}

/** Guardrail findings by policy, detector, action and direction (never what was matched). */
function writeGuardrails(out: string[], counts: readonly GuardrailCount[]): void {
  const labels = counts.map((c) => labelText([["policy", c.policy], ["detector", c.detector], ["action", c.action], ["on", c.on]]));
  family(out, "renio_guardrail_calls_total", "counter", "Calls on which a guardrail policy's detector fired, by policy, detector, action and request or answer.");
  counts.forEach((c, i) => sample(out, "renio_guardrail_calls_total", labels[i]!, c.calls));
  family(out, "renio_guardrail_matches_total", "counter", "Matches guardrail detectors found, by policy, detector, action and request or answer.");
  counts.forEach((c, i) => sample(out, "renio_guardrail_matches_total", labels[i]!, c.matches));
  const failed = counts.filter((c) => c.failures > 0);
  family(out, "renio_guardrail_check_failures_total", "counter", "Calls whose guardrail webhook check failed or timed out, by policy and the action taken (block: refused, log: failed open).");
  failed.forEach((c) => sample(out, "renio_guardrail_check_failures_total", labelText([["policy", c.policy], ["action", c.action]]), c.failures));
}

/** What the span exporter sent, dropped and holds. */
function writeTraceCounts(out: string[], stats: ExportStats): void {
  family(out, "renio_trace_spans_exported_total", "counter", "Spans the collector accepted.");
  sample(out, "renio_trace_spans_exported_total", "", stats.exported);
  family(out, "renio_trace_spans_dropped_total", "counter", "Spans dropped: the queue was full, or the collector refused, failed or did not answer in time.");
  sample(out, "renio_trace_spans_dropped_total", "", stats.dropped);
  family(out, "renio_trace_spans_queued", "gauge", "Spans waiting to be exported.");
  sample(out, "renio_trace_spans_queued", "", stats.queued);
}
