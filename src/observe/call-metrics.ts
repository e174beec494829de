import { createSpenderMetrics } from "./spender-metrics.ts";
import type { CallObserver } from "./call-observer.ts";
import { createHistogram, observe, SECONDS_BUCKETS, type Histogram } from "../shared/histogram.ts";
import { OUTCOMES, type JournalCompletion, type JournalStart, type Outcome } from "../shared/journal-records.ts";
import { family, histogramSamples, labelText, moneySample, sample } from "./prom-text.ts";
import { toNanos } from "../shared/money.ts";

/** Options of {@link createCallMetrics}. */
export interface CallMetricsOptions {
  /** Label call series by key id too (one series set per key). */
  readonly perKeyLabels: boolean;
  /** The budget currency (the `currency` label of the cost counter). */
  readonly currency: string;
}

/** Per-call figures, recorded by the relay's observer and written on scrape. */
export interface CallMetrics extends CallObserver {
  /** Appends the call families (text format lines) to `out`. */
  write(out: string[]): void;
}

/** Latency histograms of one route, provider and model. */
interface LatencySeries {
  readonly labels: string;
  readonly total: Histogram;
  readonly ttfb: Histogram;
  readonly upstream: Histogram;
  readonly overhead: Histogram;
}

/** The counters of one route, provider, model, project (and key). */
interface CallSeries {
  readonly labels: string;
  readonly latency: LatencySeries;
  /** Calls by status, each an array indexed by outcome. */
  readonly calls: Map<number, Float64Array>;
  /** Input, cached input and output tokens. */
  readonly tokens: Float64Array;
  /** Settled cost, in integer billionths (a sum of floats would drift). */
  costNanos: number;
  /** Reservations held by its calls against budgets, settled or not, in integer billionths. */
  reservedNanos: number;
}

type Level<V> = Map<string, V>;

const OUTCOME_INDEX: Readonly<Record<Outcome, number>> = Object.fromEntries(OUTCOMES.map((outcome, i) => [outcome, i])) as Record<Outcome, number>;
const TOKEN_TYPES = ["input", "cached_input", "output"] as const;

/** The child map of `key`, created when missing. */
function level<V>(map: Level<Level<V>>, key: string): Level<V> {
  let next = map.get(key);
  if (next === undefined) map.set(key, (next = new Map()));
  return next;
}

/**
 * Call metrics held in plain arrays: each label set is resolved once, through nested maps
 * keyed by the call's own strings (route → provider → model → project → key), to a series
 * whose label text was rendered when it was created. Recording a call is those lookups and
 * a few array increments; no string is built and nothing is allocated once the series exists.
 */
export function createCallMetrics(options: CallMetricsOptions): CallMetrics {
  const series = new Map<string, Level<Level<Level<Level<CallSeries>>>>>();
  const latencies = new Map<string, Level<Level<LatencySeries>>>();
  const refusals = new Map<string, number>();
  const all: CallSeries[] = [];
  const allLatencies: LatencySeries[] = [];
  const spenders = createSpenderMetrics(options.currency);

  const latencyOf = (route: string, provider: string, model: string): LatencySeries => {
    const byModel = level(level(latencies, route), provider);
    let found = byModel.get(model);
    if (found === undefined) {
      const labels = labelText([["route", route], ["provider", provider], ["model", model]]);
      found = { labels, total: createHistogram(SECONDS_BUCKETS), ttfb: createHistogram(SECONDS_BUCKETS), upstream: createHistogram(SECONDS_BUCKETS), overhead: createHistogram(SECONDS_BUCKETS) };
      byModel.set(model, found);
      allLatencies.push(found);
    }
    return found;
  };

  const seriesOf = (start: Readonly<JournalStart>): CallSeries => {
    const route = start.route;
    const provider = start.provider ?? "";
    // A model name is a label only once it was routed (a configured model): a name a client
    // made up would add series of its own.
    const model = start.provider === null ? "" : (start.model ?? "");
    const project = start.project ?? "";
    const key = options.perKeyLabels ? (start.keyId ?? "") : "";
    const byKey = level(level(level(level(series, route), provider), model), project);
    let found = byKey.get(key);
    if (found === undefined) {
      const pairs: Array<[string, string]> = [["route", route], ["provider", provider], ["model", model], ["project", project]];
      if (options.perKeyLabels) pairs.push(["key", key]);
      found = { labels: labelText(pairs), latency: latencyOf(route, provider, model), calls: new Map(), tokens: new Float64Array(3), costNanos: 0, reservedNanos: 0 };
      byKey.set(key, found);
      all.push(found);
    }
    return found;
  };

  return {
    ended(start, end, reserved) {
      const found = seriesOf(start);
      if (reserved !== undefined) found.reservedNanos += toNanos(reserved);
      let byOutcome = found.calls.get(end.status);
      if (byOutcome === undefined) found.calls.set(end.status, (byOutcome = new Float64Array(OUTCOMES.length)));
      byOutcome[OUTCOME_INDEX[end.outcome]]! += 1;
      if (end.outcome === "refused" && end.errorCode !== null) refusals.set(end.errorCode, (refusals.get(end.errorCode) ?? 0) + 1);
      recordLatency(found.latency, end);
      const usage = end.usage;
      if (usage !== null) {
        found.tokens[0]! += usage.inputTokens;
        found.tokens[1]! += usage.cachedInputTokens;
        found.tokens[2]! += usage.outputTokens;
      }
      if (end.cost !== null) found.costNanos += toNanos(end.cost);
      spenders.ended(start, end);
    },
    write(out) {
      family(out, "renio_calls_total", "counter", "Model calls by how they ended (refused calls included).");
      for (const s of all) {
        for (const [status, byOutcome] of s.calls) {
          for (let i = 0; i < OUTCOMES.length; i++) {
            if (byOutcome[i]! > 0) sample(out, "renio_calls_total", `${s.labels},${labelText([["outcome", OUTCOMES[i]], ["status", status]])}`, byOutcome[i]!);
          }
        }
      }
      family(out, "renio_refusals_total", "counter", "Calls refused before they were forwarded, by error code.");
      for (const [code, count] of refusals) sample(out, "renio_refusals_total", labelText([["code", code]]), count);
      const histograms: Array<[string, string, (l: LatencySeries) => Histogram]> = [
        ["renio_call_duration_seconds", "Time from request arrival to the end of the call.", (l) => l.total],
        ["renio_call_ttfb_seconds", "Time from request arrival to the first response byte sent to the client.", (l) => l.ttfb],
        ["renio_upstream_duration_seconds", "Time from sending upstream to the end of the upstream body.", (l) => l.upstream],
        ["renio_relay_overhead_seconds", "Time Renio adds to a forwarded call: total minus upstream.", (l) => l.overhead],
      ];
      for (const [name, help, pick] of histograms) {
        family(out, name, "histogram", help);
        for (const l of allLatencies) histogramSamples(out, name, l.labels, pick(l));
      }
      family(out, "renio_tokens_total", "counter", "Tokens the providers reported, by type (input excludes cached input).");
      for (const s of all) {
        for (let i = 0; i < TOKEN_TYPES.length; i++) sample(out, "renio_tokens_total", `${s.labels},${labelText([["type", TOKEN_TYPES[i]]])}`, s.tokens[i]!);
      }
      family(out, "renio_cost_total", "counter", "Settled cost of calls, in the budget currency.");
      const currency = labelText([["currency", options.currency]]);
      for (const s of all) moneySample(out, "renio_cost_total", `${s.labels},${currency}`, s.costNanos);
      family(out, "renio_reserved_total", "counter", "Reservations calls held against their budgets until they settled, in the budget currency (against renio_cost_total: the headroom reservations take).");
      for (const s of all) moneySample(out, "renio_reserved_total", `${s.labels},${currency}`, s.reservedNanos);
      spenders.write(out);
    },
  };
}

/** Total, TTFB, upstream and overhead (total minus upstream) of one call, in seconds. */
function recordLatency(latency: LatencySeries, end: Readonly<JournalCompletion>): void {
  observe(latency.total, end.totalMs / 1000);
  if (end.ttfbMs !== null) observe(latency.ttfb, end.ttfbMs / 1000);
  if (end.upstreamMs !== null) {
    observe(latency.upstream, end.upstreamMs / 1000);
    observe(latency.overhead, Math.max(0, end.totalMs - end.upstreamMs) / 1000);
  }
}
