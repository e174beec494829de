import { concatArrays } from "../shared/array-concat.ts";
import type { Progress } from "./bench-progress.ts";
import type { MeasuredRelay } from "./bench-run.ts";
import { overheadOf, summarize, type Overhead } from "./bench-stats.ts";
import { benchRequestBody, createLoadTarget, runRound } from "./load-client.ts";

/** Requests per worker in each direct or relay round of a soak. */
export const SOAK_ROUND_PER_WORKER = 20;

/** One sampling interval of a soak run. */
export interface SoakSample {
  /** Seconds since the measured span began, at the end of the interval. */
  readonly elapsedSeconds: number;
  /** Requests the relay served in the interval (errors included). */
  readonly requests: number;
  readonly errors: number;
  /** Relay median/P95 minus direct, over the interval's alternating rounds (ms). */
  readonly overhead: Overhead;
  /** The relay's RSS at the end of the interval, in bytes. */
  readonly rssBytes?: number;
  /** The relay's CPU seconds per request over the interval. */
  readonly cpuPerRequestSeconds?: number;
}

/** A whole soak run. */
export interface SoakResult {
  readonly concurrency: number;
  readonly durationSeconds: number;
  readonly sampleSeconds: number;
  /** RSS once the 300 warm-up requests were done, in bytes (the heap still grows after them). */
  readonly rssAfterWarmupBytes?: number;
  /**
   * (last sample's RSS − first sample's) / first sample's: growth from the end of the first
   * interval, once the heap has reached its working size under the load, to the end.
   */
  readonly rssGrowth?: number;
  readonly samples: readonly SoakSample[];
}

/** What {@link runSoak} does. */
export interface SoakPlan {
  readonly durationSeconds: number;
  readonly sampleSeconds: number;
  readonly concurrency: number;
  readonly warmup: number;
  readonly model: string;
  readonly directUrl: string;
  readonly directHeaders: ReadonlyArray<readonly [string, string]>;
  readonly relay: MeasuredRelay;
  readonly progress: Progress;
  readonly signal: AbortSignal;
}

/**
 * Warms up, then for `durationSeconds` runs direct and relay rounds in turn (non-streaming,
 * closed loop) and, every `sampleSeconds`, records the interval's overhead, the relay's RSS
 * and its CPU per request: a leak shows as RSS that keeps growing, drift as rising overhead.
 */
export async function runSoak(plan: SoakPlan): Promise<SoakResult> {
  const body = benchRequestBody(plan.model, false);
  const direct = createLoadTarget("direct", plan.directUrl, body, plan.directHeaders);
  const relay = createLoadTarget(plan.relay.id, plan.relay.url, body, plan.relay.headers);
  const probe = plan.relay.probe;
  const spec = { concurrency: plan.concurrency, stream: false, signal: plan.signal };
  if (plan.warmup > 0) {
    plan.progress.update("soak: warm-up");
    for (const target of [direct, relay]) await runRound(target, { ...spec, count: plan.warmup });
  }
  const rssAfterWarmup = probe?.rss();
  const roundCount = plan.concurrency * SOAK_ROUND_PER_WORKER;
  const samples: SoakSample[] = [];
  const start = performance.now();
  const end = start + plan.durationSeconds * 1000;
  while (performance.now() < end && !plan.signal.aborted) {
    const intervalEnd = Math.min(end, performance.now() + plan.sampleSeconds * 1000);
    const latencies: Record<"direct" | "relay", Float64Array[]> = { direct: [], relay: [] };
    let requests = 0;
    let errors = 0;
    const cpuStart = probe?.cpuSeconds();
    while (performance.now() < intervalEnd && !plan.signal.aborted) {
      latencies.direct.push((await runRound(direct, { ...spec, count: roundCount })).latencies);
      const result = await runRound(relay, { ...spec, count: roundCount });
      latencies.relay.push(result.latencies);
      requests += result.latencies.length + result.errors;
      errors += result.errors;
    }
    const cpuEnd = probe?.cpuSeconds();
    const rss = probe?.rss();
    const sample: SoakSample = {
      elapsedSeconds: (performance.now() - start) / 1000,
      requests,
      errors,
      overhead: overheadOf(summarize(concatArrays(latencies.direct, floats)), summarize(concatArrays(latencies.relay, floats))),
      ...(rss !== undefined ? { rssBytes: rss } : {}),
      ...(cpuStart !== undefined && cpuEnd !== undefined && requests > 0 ? { cpuPerRequestSeconds: (cpuEnd - cpuStart) / requests } : {}),
    };
    samples.push(sample);
    plan.progress.note(`soak ${Math.round(sample.elapsedSeconds)} s: overhead ${sample.overhead.median.toFixed(2)} ms, RSS ${rss === undefined ? "n/a" : `${(rss / 2 ** 20).toFixed(1)} MB`}`);
  }
  const first = samples[0]?.rssBytes;
  const last = samples.at(-1)?.rssBytes;
  return {
    concurrency: plan.concurrency,
    durationSeconds: plan.durationSeconds,
    sampleSeconds: plan.sampleSeconds,
    ...(rssAfterWarmup !== undefined ? { rssAfterWarmupBytes: rssAfterWarmup } : {}),
    ...(first !== undefined && last !== undefined && samples.length > 1 ? { rssGrowth: (last - first) / first } : {}),
    samples,
  };
}

const floats = (length: number) => new Float64Array(length);
