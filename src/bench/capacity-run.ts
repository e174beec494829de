import type { Progress } from "./bench-progress.ts";
import { summarize, type LatencySummary } from "./bench-stats.ts";
import type { ProcessProbe } from "./process-usage.ts";
import { createStreamTarget, runStreamRound, type StreamRoundResult } from "./stream-load.ts";
import { benchRequestBody } from "./load-client.ts";

/** A server measured in capacity mode: a Renio, the passthrough, the Go proxy or nginx. */
export interface CapacitySubject {
  readonly id: string;
  readonly label: string;
  /** Full chat completions URL. */
  readonly url: string;
  readonly headers: ReadonlyArray<readonly [string, string]>;
  /** CPU and memory of its process. */
  readonly probe?: ProcessProbe;
  /** Its RSS before any load (bytes): what RSS per open stream is counted from. */
  readonly rssStartBytes?: number;
}

/** What {@link runCapacity} measures. */
export interface CapacityPlan {
  readonly concurrency: readonly number[];
  /** Measured calls per subject and point (each worker does at least one). */
  readonly requests: number;
  /** Calls per worker before the measured ones. */
  readonly warmupPerWorker: number;
  /** About one stream's length (ms): the workers' starts are spread over it. */
  readonly streamMs: number;
  readonly model: string;
  readonly directUrl: string;
  readonly directHeaders: ReadonlyArray<readonly [string, string]>;
  readonly subjects: readonly CapacitySubject[];
  readonly progress: Progress;
  readonly signal: AbortSignal;
}

/** One server (or direct) at one point. */
export interface CapacityMeasure {
  readonly id: string;
  readonly label: string;
  /** Request sent to the first `data:` piece (ms). */
  readonly firstToken: LatencySummary;
  /** Between two body pieces of a stream (ms). */
  readonly gap: LatencySummary;
  readonly calls: number;
  readonly errors: number;
  readonly callsPerSecond: number;
  readonly firstError?: string;
  /** CPU seconds of its process over the round (warm-up included), and the calls it served in that time. */
  readonly cpuSeconds?: number;
  readonly callsServed?: number;
  /** Wall seconds of the round (warm-up included). */
  readonly wallSeconds?: number;
  /** Peak RSS during the round and before any load (bytes). */
  readonly rssPeakBytes?: number;
  readonly rssStartBytes?: number;
}

/** Everything measured at one concurrency: direct first. */
export interface CapacityPoint {
  readonly concurrency: number;
  readonly callsPerWorker: number;
  readonly direct: CapacityMeasure;
  readonly subjects: readonly CapacityMeasure[];
}

/**
 * For each point: direct (the mock itself) and every subject in turn (the order rotates from one
 * point to the next, so drift on a shared machine does not always favour the same one), each with
 * `concurrency` streams open at once.
 */
export async function runCapacity(plan: CapacityPlan): Promise<CapacityPoint[]> {
  const body = benchRequestBody(plan.model, true);
  const all = [{ id: "direct", label: "direct", url: plan.directUrl, headers: plan.directHeaders } as CapacitySubject, ...plan.subjects];
  const points: CapacityPoint[] = [];
  for (const [index, concurrency] of plan.concurrency.entries()) {
    const callsPerWorker = Math.max(1, Math.ceil(plan.requests / concurrency));
    const measures = new Map<string, CapacityMeasure>();
    for (let turn = 0; turn < all.length; turn++) {
      const subject = all[(index + turn) % all.length]!;
      plan.progress.update(`capacity c=${concurrency}: ${subject.label}`);
      measures.set(subject.id, await measure(subject, createStreamTarget(subject.id, subject.url, body, subject.headers), plan, concurrency, callsPerWorker));
      if (plan.signal.aborted) throw new Error("the overall deadline (--max-seconds) was reached");
    }
    const point: CapacityPoint = { concurrency, callsPerWorker, direct: measures.get("direct")!, subjects: plan.subjects.map((subject) => measures.get(subject.id)!) };
    plan.progress.note(pointLine(point));
    points.push(point);
  }
  return points;
}

async function measure(subject: CapacitySubject, target: ReturnType<typeof createStreamTarget>, plan: CapacityPlan, concurrency: number, callsPerWorker: number): Promise<CapacityMeasure> {
  const probe = subject.probe;
  probe?.resetPeak();
  const cpuStart = probe?.cpuSeconds();
  const started = performance.now();
  // Peak RSS from VmHWM where the probe can reset it, else sampled.
  let sampled = probe?.rss();
  const sampler = setInterval(() => {
    const rss = probe?.rss();
    if (rss !== undefined && (sampled === undefined || rss > sampled)) sampled = rss;
  }, 250);
  let result: StreamRoundResult;
  try {
    result = await runStreamRound(target, { concurrency, warmupPerWorker: plan.warmupPerWorker, callsPerWorker, staggerMs: plan.streamMs, signal: plan.signal });
  } finally {
    clearInterval(sampler);
  }
  const wallSeconds = (performance.now() - started) / 1000;
  const cpuEnd = probe?.cpuSeconds();
  const peak = maxDefined(probe?.peakRss(), sampled);
  return {
    id: subject.id,
    label: subject.label,
    firstToken: summarize(result.firstToken, result.errors),
    gap: summarize(result.gaps),
    calls: result.calls,
    errors: result.errors,
    callsPerSecond: result.seconds > 0 ? result.calls / result.seconds : 0,
    ...(result.firstError !== undefined ? { firstError: result.firstError } : {}),
    ...(cpuStart !== undefined && cpuEnd !== undefined ? { cpuSeconds: cpuEnd - cpuStart, callsServed: concurrency * (plan.warmupPerWorker + callsPerWorker), wallSeconds } : {}),
    ...(peak !== undefined ? { rssPeakBytes: peak } : {}),
    ...(subject.rssStartBytes !== undefined ? { rssStartBytes: subject.rssStartBytes } : {}),
  };
}

function maxDefined(a: number | undefined, b: number | undefined): number | undefined {
  return a === undefined ? b : b === undefined ? a : Math.max(a, b);
}

function pointLine(point: CapacityPoint): string {
  const added = (measure: CapacityMeasure) => `${measure.label} +${(measure.firstToken.median - point.direct.firstToken.median).toFixed(1)} ms`;
  return `capacity c=${point.concurrency}: direct first token ${point.direct.firstToken.median.toFixed(1)} ms; ${point.subjects.map(added).join("; ")}`;
}
