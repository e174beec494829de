import { concatArrays } from "../shared/array-concat.ts";
import type { BenchMode, BenchOptions } from "./bench-args.ts";
import type { Progress } from "./bench-progress.ts";
import type { ModeResult, PointResult, RelayGuardrails, RelayPoint } from "./bench-report.ts";
import { overheadOf, summarize } from "./bench-stats.ts";
import { benchRequestBody, createLoadTarget, runInterleaved, type LoadTarget, type RoundResult } from "./load-client.ts";
import type { ProcessProbe } from "./process-usage.ts";

/** A relay to measure against direct: Renio, a --target, or the passthrough floor. */
export interface MeasuredRelay {
  readonly id: string;
  readonly label: string;
  /** Full chat completions URL. */
  readonly url: string;
  readonly headers: ReadonlyArray<readonly [string, string]>;
  /** CPU and memory of its process, when it runs here. */
  readonly probe?: ProcessProbe;
  /** Its journal writes so far (a Renio with a journal: journal-writes.ts), for the requests each write carried. */
  readonly journalWrites?: () => Promise<number | undefined>;
  /** The model in its request body, when not the plan's (--model list). */
  readonly model?: string;
  /** It serves the model by translating to an Anthropic-format upstream. */
  readonly translated?: boolean;
  /** It runs with the bench's guardrail policy (--guardrails). */
  readonly guardrails?: RelayGuardrails;
  /** Served by the process of the relay with this id (another key on it): its calls count in that relay's CPU per request. */
  readonly sharesProcessWith?: string;
}

/** What {@link runMeasurements} measures. */
export interface MeasurementPlan {
  readonly options: Pick<BenchOptions, "concurrency" | "requests" | "warmup" | "rounds" | "modes" | "model">;
  /** The mock's chat completions URL (direct). */
  readonly directUrl: string;
  readonly directHeaders: ReadonlyArray<readonly [string, string]>;
  /** Subject first, then baseline. */
  readonly relays: readonly MeasuredRelay[];
  readonly progress: Progress;
  /** The overall deadline. */
  readonly signal: AbortSignal;
}

interface Accumulator {
  readonly target: LoadTarget;
  readonly relay: MeasuredRelay | undefined;
  readonly samples: Float64Array[];
  errors: number;
  served: number;
  cpuStart: number | undefined;
  cpuSeconds: number | undefined;
  threadStart: Map<string, number> | undefined;
  threadSeconds: Map<string, number> | undefined;
  writesStart: number | undefined;
  writes: number | undefined;
  firstError: string | undefined;
  rssIdle: number | undefined;
  rssPeak: number | undefined;
}

/**
 * For each mode and point: warm every target up, then run `rounds` rounds in
 * which direct and every relay each take their turn (the order rotates each
 * round, so drift on a shared machine cancels), and summarize.
 */
export async function runMeasurements(plan: MeasurementPlan): Promise<ModeResult[]> {
  const results: ModeResult[] = [];
  for (const mode of plan.options.modes) {
    const points: PointResult[] = [];
    for (const concurrency of plan.options.concurrency) points.push(await measurePoint(plan, mode, concurrency));
    results.push({ mode, points });
  }
  return results;
}

async function measurePoint(plan: MeasurementPlan, mode: BenchMode, concurrency: number): Promise<PointResult> {
  const { options, progress, signal } = plan;
  const stream = mode === "stream";
  const body = benchRequestBody(options.model, stream);
  const bodyOf = (relay: MeasuredRelay) => (relay.model === undefined ? body : benchRequestBody(relay.model, stream));
  const accumulators: Accumulator[] = [
    accumulator(createLoadTarget("direct", plan.directUrl, body, plan.directHeaders), undefined),
    ...plan.relays.map((relay) => accumulator(createLoadTarget(relay.id, relay.url, bodyOf(relay), relay.headers), relay)),
  ];
  const tag = `${mode} c=${concurrency}`;
  for (const acc of accumulators) {
    acc.relay?.probe?.resetPeak();
    acc.rssIdle = acc.relay?.probe?.rss();
    acc.rssPeak = acc.rssIdle;
  }
  const turns = turnsOf(accumulators);
  for (const turn of turns) {
    if (options.warmup === 0) break;
    progress.update(`${tag}: warm-up ${namesOf(turn)}`);
    const warm = await runInterleaved(turn.map((acc) => acc.target), { concurrency, count: options.warmup, stream, signal });
    checkDeadline(signal);
    turn.forEach((acc, i) => {
      if (warm[i]!.errors === options.warmup) throw new Error(`${acc.target.name} (${acc.target.url}): every warm-up request failed: ${warm[i]!.firstError}`);
    });
  }
  // CPU is taken over the whole measured span (not per round), so work a relay defers
  // past a round (batched settlement) is still counted; it serves nothing else meanwhile.
  for (const acc of accumulators) {
    acc.writesStart = await acc.relay?.journalWrites?.();
    acc.cpuStart = acc.relay?.probe?.cpuSeconds();
    acc.threadStart = acc.relay?.probe?.threadCpuSeconds();
  }
  for (let round = 0; round < options.rounds; round++) {
    const count = share(options.requests, options.rounds, round);
    for (let at = 0; at < turns.length; at++) {
      const turn = turns[(round + at) % turns.length]!;
      progress.update(`${tag}: round ${round + 1}/${options.rounds} ${namesOf(turn)}`);
      const results = await runInterleaved(turn.map((acc) => acc.target), { concurrency, count, stream, signal });
      checkDeadline(signal);
      turn.forEach((acc, i) => record(acc, results[i]!));
    }
  }
  for (const acc of accumulators) {
    const end = acc.relay?.probe?.cpuSeconds();
    acc.cpuSeconds = acc.cpuStart === undefined || end === undefined ? undefined : end - acc.cpuStart;
    acc.threadSeconds = threadDelta(acc.threadStart, acc.relay?.probe?.threadCpuSeconds());
  }
  for (const acc of accumulators) {
    const end = acc.writesStart === undefined ? undefined : await acc.relay?.journalWrites?.();
    acc.writes = end === undefined ? undefined : end - acc.writesStart!;
  }
  // A process serving several targets: its CPU over all the calls it served.
  const servedByProcess = new Map<string, number>();
  for (const acc of accumulators) {
    const owner = acc.relay?.sharesProcessWith ?? acc.relay?.id;
    if (owner !== undefined) servedByProcess.set(owner, (servedByProcess.get(owner) ?? 0) + acc.served);
  }
  const [direct, ...relays] = accumulators.map((acc) => ({ acc, summary: summarize(concatArrays(acc.samples, (length) => new Float64Array(length)), acc.errors) }));
  const point: PointResult = {
    concurrency,
    direct: direct!.summary,
    ...(direct!.acc.firstError ? { directFirstError: direct!.acc.firstError } : {}),
    relays: relays.map(({ acc, summary }): RelayPoint => {
      const peak = maxDefined(acc.rssPeak, acc.relay!.probe?.peakRss());
      const served = servedByProcess.get(acc.relay!.id) ?? acc.served;
      return {
        id: acc.relay!.id,
        label: acc.relay!.label,
        ...(acc.relay!.model !== undefined ? { model: acc.relay!.model } : {}),
        ...(acc.relay!.translated ? { translated: true } : {}),
        ...(acc.relay!.guardrails !== undefined ? { guardrails: acc.relay!.guardrails } : {}),
        latency: summary,
        overhead: overheadOf(direct!.summary, summary),
        ...(acc.cpuSeconds !== undefined && served > 0 ? { cpuPerRequestSeconds: acc.cpuSeconds / served } : {}),
        ...(acc.threadSeconds !== undefined && served > 0 ? { cpuPerRequestByThread: perRequest(acc.threadSeconds, served) } : {}),
        ...(acc.writes !== undefined && acc.writes > 0 ? { requestsPerJournalWrite: served / acc.writes } : {}),
        ...(acc.rssIdle !== undefined ? { rssIdleBytes: acc.rssIdle } : {}),
        ...(peak !== undefined ? { rssPeakBytes: peak } : {}),
        ...(acc.firstError ? { firstError: acc.firstError } : {}),
      };
    }),
  };
  progress.note(pointLine(tag, point));
  return point;
}

/**
 * The targets measured together: each on its own, except targets served by the same process
 * (two keys of one relay), which share a turn with their calls interleaved one by one, so their
 * comparison meets the same moments of the machine (a turn following an idle spell of its
 * process is slower throughout, whichever comes first).
 */
function turnsOf(accumulators: readonly Accumulator[]): Accumulator[][] {
  const turns: Accumulator[][] = [];
  for (const acc of accumulators) {
    const owner = acc.relay?.sharesProcessWith;
    const shared = owner === undefined ? undefined : turns.find((turn) => turn.some((other) => other.relay?.id === owner));
    if (shared !== undefined) shared.push(acc);
    else turns.push([acc]);
  }
  return turns;
}

function namesOf(turn: readonly Accumulator[]): string {
  return turn.map((acc) => acc.target.name).join(" + ");
}

function accumulator(target: LoadTarget, relay: MeasuredRelay | undefined): Accumulator {
  return { target, relay, samples: [], errors: 0, served: 0, cpuStart: undefined, cpuSeconds: undefined, threadStart: undefined, threadSeconds: undefined, writesStart: undefined, writes: undefined, firstError: undefined, rssIdle: undefined, rssPeak: undefined };
}

function record(acc: Accumulator, result: RoundResult): void {
  acc.samples.push(result.latencies);
  acc.errors += result.errors;
  acc.served += result.latencies.length + result.errors;
  acc.firstError ??= result.firstError;
  acc.rssPeak = maxDefined(acc.rssPeak, acc.relay?.probe?.rss());
}

/** CPU seconds per thread name between two snapshots (threads that exited meanwhile are lost). */
function threadDelta(start: Map<string, number> | undefined, end: Map<string, number> | undefined): Map<string, number> | undefined {
  if (start === undefined || end === undefined) return undefined;
  const delta = new Map<string, number>();
  for (const [name, seconds] of end) delta.set(name, Math.max(0, seconds - (start.get(name) ?? 0)));
  return delta;
}

function perRequest(seconds: Map<string, number>, served: number): Record<string, number> {
  const entries = [...seconds].filter(([, value]) => value > 0).sort((a, b) => b[1] - a[1]);
  return Object.fromEntries(entries.map(([name, value]) => [name, value / served]));
}

function maxDefined(a: number | undefined, b: number | undefined): number | undefined {
  return a === undefined ? b : b === undefined ? a : Math.max(a, b);
}

/** Round `round`'s share of `total` requests over `rounds` rounds (they sum to `total`). */
export function share(total: number, rounds: number, round: number): number {
  return Math.floor((total * (round + 1)) / rounds) - Math.floor((total * round) / rounds);
}

function checkDeadline(signal: AbortSignal): void {
  if (signal.aborted) throw new Error("the overall deadline (--max-seconds) was reached");
}

function pointLine(tag: string, point: PointResult): string {
  const signed = (ms: number) => `${ms < 0 ? "" : "+"}${ms.toFixed(2)}`;
  const relays = point.relays.map((relay) => `${relay.label} ${signed(relay.overhead.median)} ms (p95 ${signed(relay.overhead.p95)})`);
  return `${tag}: direct ${point.direct.median.toFixed(2)} ms; ${relays.join("; ")}`;
}
