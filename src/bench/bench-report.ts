import type { BenchMode, GuardrailsSetting } from "./bench-args.ts";
import type { MachineInfo } from "./bench-machine.ts";
import type { RelaySettings } from "./bench-relay-config.ts";
import type { DiskFloor } from "./disk-floor.ts";
import { durableWriteLines } from "./durable-write.ts";
import { guardrailsCostTable } from "./guardrails-cost.ts";
import { featureLines, type RedisRoundTrip } from "./bench-redis.ts";
import { SOAK_ROUND_PER_WORKER, type SoakResult } from "./soak.ts";
import type { LatencySummary, Overhead } from "./bench-stats.ts";
import { formatMegabytes, formatMicros, formatMs, renderTable, type TableFormat } from "./bench-table.ts";

/** One relay (Renio, a --target, or the passthrough floor) at one point. */
export interface RelayPoint {
  /** `renio`, `target` or `passthrough`. */
  readonly id: string;
  /** As shown in column titles (`Renio`, `target`, `passthrough`). */
  readonly label: string;
  /** The model in its request body, when one Renio ran per model (--model list). */
  readonly model?: string;
  /** Served by translating the OpenAI call to an Anthropic-format upstream (and the answer back). */
  readonly translated?: true;
  /** It ran with the bench's guardrail policy (--guardrails). */
  readonly guardrails?: RelayGuardrails;
  readonly latency: LatencySummary;
  readonly overhead: Overhead;
  /** CPU seconds (user + sys) of the relay process per request served; absent when not measured. */
  readonly cpuPerRequestSeconds?: number;
  /** The same, split by thread name (the main JavaScript thread carries the process name, e.g. `bun.exe`), largest first; Linux only. */
  readonly cpuPerRequestByThread?: Readonly<Record<string, number>>;
  /**
   * Requests per journal write over the measured rounds (a Renio with a journal): with `fsync`
   * each write is one durable write, whose CPU (DiskFloor.cpuPerWriteSeconds) the requests it
   * carried share.
   */
  readonly requestsPerJournalWrite?: number;
  /** RSS before the point's load, in bytes. */
  readonly rssIdleBytes?: number;
  /** Peak RSS during the point, in bytes. */
  readonly rssPeakBytes?: number;
  /** First error message, when some requests failed. */
  readonly firstError?: string;
}

/** The guardrails of a Renio under test. */
export interface RelayGuardrails {
  /** What its policy does with a match, on requests and answers. */
  readonly action: Exclude<GuardrailsSetting, "off">;
  /** The id of the Renio measured beside it, identical but without guardrails. */
  readonly unguarded?: string;
}

/** One concurrency level of one mode. */
export interface PointResult {
  readonly concurrency: number;
  readonly direct: LatencySummary;
  /** The subject first (Renio or the target), then the baseline. */
  readonly relays: readonly RelayPoint[];
  readonly directFirstError?: string;
}

/** All points of one mode. */
export interface ModeResult {
  readonly mode: BenchMode;
  readonly points: readonly PointResult[];
}

/** What the durable write costs Renio at one point, against the disk's own floor. */
export interface DurableWriteCost {
  readonly mode: BenchMode;
  readonly concurrency: number;
  /** The storage both Renios used, when several storages ran side by side. */
  readonly storage?: string;
  /** Median overhead of Renio `fsync` minus that of Renio `process` (ms). */
  readonly fsyncMinusProcessMs: number;
  /** Median O_DSYNC write of the disk, same run (ms). */
  readonly floorMedianMs: number;
  /** fsyncMinusProcessMs / floorMedianMs (target ≤ 1.1). */
  readonly ratio: number;
  /** Median O_DSYNC write after the idle pause of a lone call of this mode (DiskFloor.paced), and fsyncMinusProcessMs over it, when measured. */
  readonly paced?: { readonly pauseMs: number; readonly floorMedianMs: number; readonly ratio: number };
}

/** What a guarded Renio's policy adds at one point: its overhead minus that of the Renio identical but without guardrails. */
export interface GuardrailsCost {
  readonly mode: BenchMode;
  readonly concurrency: number;
  /** Ids of the guarded and the unguarded Renio. */
  readonly relay: string;
  readonly unguarded: string;
  /** Difference of the median overheads (ms): for streams, of the first token. */
  readonly medianMs: number;
  /** Difference of the P95 overheads (ms). */
  readonly p95Ms: number;
  /** Difference of the relay process's CPU per request (seconds), when measured for both. */
  readonly cpuPerRequestSeconds?: number;
}

/** What was measured instead of Renio, when `--target` was given. */
export interface TargetInfo {
  readonly url: string;
  /** Header names only; values may be secrets. */
  readonly headerNames: readonly string[];
}

/** A whole `renio bench` run. */
export interface BenchReport {
  readonly renioVersion: string;
  readonly startedAt: string;
  readonly durationSeconds: number;
  readonly method: {
    readonly requests: number;
    readonly warmup: number;
    readonly rounds: number;
    readonly concurrency: readonly number[];
    readonly mock: { readonly latencyMs: number; readonly chunkIntervalMs: number; readonly chunks: number };
    readonly model: string;
  };
  readonly machine: MachineInfo;
  /** `bun 1.4.5` etc.: the load client, mock, relay and passthrough all run on it (except a --target). */
  readonly runtime: string;
  /** Settings of the Renio under test; absent with --target. */
  readonly relay?: RelaySettings;
  readonly target?: TargetInfo;
  readonly baseline?: "passthrough";
  /** Calls the mock received over the run (warm-up included), by the wire format of the path called. */
  readonly mockCalls?: { readonly openai: number; readonly anthropic: number };
  /** The disk's O_DSYNC write latency, measured in the run's directory before the load. */
  readonly diskFloor?: DiskFloor;
  /** Renio fsync − Renio process against the floor, when both ran (--journal fsync,process). */
  readonly durableWrite?: readonly DurableWriteCost[];
  /** What the guardrail policy adds at each point, when guarded and unguarded Renios ran side by side (--guardrails off,…). */
  readonly guardrailsCost?: readonly GuardrailsCost[];
  /** Soak mode (--duration): samples over time; `modes` is then empty. */
  readonly soak?: SoakResult;
  /** Redis's own round trip, measured in the run (--features redis-limits). */
  readonly redisRoundTrip?: RedisRoundTrip;
  readonly modes: readonly ModeResult[];
}

const TITLES: Record<BenchMode, string> = {
  json: "Non-streaming: end-to-end latency of a complete request",
  stream: "Streaming: time to first token (request sent to the first chunk carrying text)",
};

/** Renders the report as text tables, Markdown, or JSON. */
export function renderReport(report: BenchReport, format: TableFormat | "json"): string {
  if (format === "json") return JSON.stringify(report, null, 2);
  const heading = (text: string) => (format === "markdown" ? `### ${text}` : text);
  const blocks: string[] = [];
  for (const mode of report.modes) {
    blocks.push(heading(TITLES[mode.mode]), latencyTable(mode, format));
    const resources = resourceTable(mode, format);
    if (resources !== undefined) blocks.push(heading(`Relay process, ${mode.mode === "json" ? "non-streaming" : "streaming"}`), resources);
    const threads = threadLines(mode);
    if (threads.length > 0) blocks.push(threads.join("\n"));
    const errors = errorLines(mode);
    if (errors.length > 0) blocks.push(errors.join("\n"));
  }
  if (report.soak !== undefined) blocks.push(heading(`Soak: ${report.soak.durationSeconds} s at concurrency ${report.soak.concurrency}, non-streaming`), soakTable(report.soak, format), soakGrowthLine(report.soak));
  if (report.guardrailsCost !== undefined && report.guardrailsCost.length > 0) blocks.push(heading("Guardrails: what the policy adds (guarded − unguarded)"), guardrailsCostTable(report, format));
  if (report.redisRoundTrip !== undefined) {
    const { pings, p50Ms, p95Ms } = report.redisRoundTrip;
    const paced = (report.redisRoundTrip.paced ?? []).map((trip) => `PING after ${trip.pauseMs} ms idle (as between ${trip.mode} calls at one in flight), ${trip.pings} times: median ${trip.p50Ms.toFixed(3)} ms, P95 ${trip.p95Ms.toFixed(3)} ms`);
    blocks.push(heading("Redis round trip"), [`PING on one connection, ${pings} in a row: median ${p50Ms.toFixed(3)} ms, P95 ${p95Ms.toFixed(3)} ms (a Redis-checked call adds one such round trip)`, ...paced].join("\n"));
  }
  const features = featureLines(report.modes, report.redisRoundTrip);
  if (features.length > 0) blocks.push(heading("Shared rate limits and cache hits"), features.join("\n"));
  const disk = durableWriteLines(report.diskFloor, report.durableWrite);
  if (disk.length > 0) blocks.push(heading("Durable write"), disk.join("\n"));
  blocks.push(heading("Setup"), setupLines(report, format).join("\n"));
  return blocks.join("\n\n");
}

function latencyTable(mode: ModeResult, format: TableFormat): string {
  if (mode.points.some((point) => point.relays.some((relay) => relay.model !== undefined))) return latencyRows(mode, format);
  const subject = mode.points[0]?.relays[0]?.label ?? "Renio";
  const others = mode.points[0]?.relays.slice(1).map((relay) => relay.label) ?? [];
  const header = [
    "Concurrent requests",
    "Direct (median)",
    `Via ${subject} (median)`,
    mode.mode === "stream" ? "First-token overhead" : "Median overhead",
    "P95 overhead",
    ...others.flatMap((label) => [`${capitalize(label)} median overhead`, `${capitalize(label)} P95 overhead`]),
  ];
  const rows = mode.points.map((point) => {
    const [main, ...rest] = point.relays;
    return [
      String(point.concurrency),
      formatMs(point.direct.median),
      formatMs(main?.latency.median ?? Number.NaN),
      formatMs(main?.overhead.median ?? Number.NaN),
      formatMs(main?.overhead.p95 ?? Number.NaN),
      ...rest.flatMap((relay) => [formatMs(relay.overhead.median), formatMs(relay.overhead.p95)]),
    ];
  });
  return renderTable(header, rows, format);
}

/** One row per point and relay (a --model list: each model's row with its overhead). */
function latencyRows(mode: ModeResult, format: TableFormat): string {
  const header = ["Concurrent requests", "Via", "Direct (median)", "Via (median)", mode.mode === "stream" ? "First-token overhead" : "Median overhead", "P95 overhead"];
  const rows = mode.points.flatMap((point) =>
    point.relays.map((relay) => [
      String(point.concurrency),
      `${relay.label}${relay.translated ? " (translated)" : ""}`,
      formatMs(point.direct.median),
      formatMs(relay.latency.median),
      formatMs(relay.overhead.median),
      formatMs(relay.overhead.p95),
    ]),
  );
  return renderTable(header, rows, format);
}

function resourceTable(mode: ModeResult, format: TableFormat): string | undefined {
  const measured = mode.points[0]?.relays.filter((relay) => relay.cpuPerRequestSeconds !== undefined || relay.rssPeakBytes !== undefined) ?? [];
  if (measured.length === 0) return undefined;
  const ids = measured.map((relay) => relay.id);
  const header = ["Concurrent requests", ...measured.flatMap((relay) => [`${capitalize(relay.label)} CPU per request`, `${capitalize(relay.label)} RSS idle`, `${capitalize(relay.label)} RSS peak`])];
  const rows = mode.points.map((point) => [
    String(point.concurrency),
    ...ids.flatMap((id) => {
      const relay = point.relays.find((candidate) => candidate.id === id);
      return [formatMicros(relay?.cpuPerRequestSeconds), formatMegabytes(relay?.rssIdleBytes), formatMegabytes(relay?.rssPeakBytes)];
    }),
  ]);
  return renderTable(header, rows, format);
}

function threadLines(mode: ModeResult): string[] {
  const lines: string[] = [];
  for (const point of mode.points) {
    for (const relay of point.relays) {
      const threads = relay.cpuPerRequestByThread;
      if (threads === undefined) continue;
      // Threads that spent less than half a microsecond per request (idle pools) are left out.
      const parts = Object.entries(threads)
        .filter(([, seconds]) => seconds >= 0.5e-6)
        .map(([name, seconds]) => `${name} ${formatMicros(seconds)}`);
      lines.push(`${capitalize(relay.label)} CPU per request by thread at ${point.concurrency}: ${parts.join(", ")}`);
    }
  }
  for (const point of mode.points) {
    for (const relay of point.relays) {
      if (relay.requestsPerJournalWrite === undefined) continue;
      lines.push(`${capitalize(relay.label)} requests per journal write at ${point.concurrency}: ${relay.requestsPerJournalWrite.toFixed(2)}`);
    }
  }
  return lines;
}

function soakTable(soak: SoakResult, format: TableFormat): string {
  const header = ["Elapsed", "Requests", "Errors", "Median overhead", "P95 overhead", "CPU per request", "RSS"];
  const rows = soak.samples.map((sample) => [
    `${Math.round(sample.elapsedSeconds)} s`,
    String(sample.requests),
    String(sample.errors),
    formatMs(sample.overhead.median),
    formatMs(sample.overhead.p95),
    formatMicros(sample.cpuPerRequestSeconds),
    formatMegabytes(sample.rssBytes),
  ]);
  return renderTable(header, rows, format);
}

function soakGrowthLine(soak: SoakResult): string {
  if (soak.rssGrowth === undefined) return "RSS growth: n/a (no /proc)";
  const [first, last] = [soak.samples[0]?.rssBytes, soak.samples.at(-1)?.rssBytes];
  return `RSS growth from the first sample to the last: ${formatMegabytes(first)} → ${formatMegabytes(last)} (${(soak.rssGrowth * 100).toFixed(1)} %; target < 10 %); after the warm-up requests ${formatMegabytes(soak.rssAfterWarmupBytes)}`;
}

function errorLines(mode: ModeResult): string[] {
  const lines: string[] = [];
  for (const point of mode.points) {
    if (point.direct.errors > 0) lines.push(`errors at ${point.concurrency}: direct ${point.direct.errors} (${point.directFirstError ?? "?"})`);
    for (const relay of point.relays) {
      if (relay.latency.errors > 0) lines.push(`errors at ${point.concurrency}: ${relay.label} ${relay.latency.errors} (${relay.firstError ?? "?"})`);
    }
  }
  return lines;
}

function setupLines(report: BenchReport, format: TableFormat): string[] {
  const { method, machine } = report;
  const bullet = format === "markdown" ? "- " : "";
  const subject = report.target
    ? `target: ${report.target.url}${report.target.headerNames.length > 0 ? ` (headers: ${report.target.headerNames.join(", ")})` : ""}`
    : `relay: Renio ${report.renioVersion}, ${journalText(report.relay)}, ` +
      `budget ${report.relay?.budget === "off" ? "off" : `${report.relay?.budget} (${BUDGET_SCOPE_TEXT[report.relay?.budgetScope ?? "total"]}, large limit)`}, storage ${report.relay?.storage}`;
  return [
    `${bullet}machine: ${machine.cpuModel}, ${machine.cores} cores, ${machine.memoryGiB} GiB, ${machine.os}`,
    `${bullet}runtime: ${report.runtime} (load client, mock${report.target ? "" : ", relay"}${report.baseline ? ", passthrough" : ""})`,
    `${bullet}${subject}`,
    ...modelLines(report.relay, bullet),
    ...guardrailsLines(report.relay, bullet),
    ...(report.mockCalls ? [`${bullet}the mock received ${report.mockCalls.openai} OpenAI-format and ${report.mockCalls.anthropic} Anthropic-format calls (warm-up included)`] : []),
    ...(report.baseline ? [`${bullet}baseline: bare fetch passthrough to the mock (renio passthrough), measured in the same rounds`] : []),
    `${bullet}method: ${report.soak ? `soak: after ${method.warmup} warm-up, direct and Renio rounds of ${report.soak.concurrency * SOAK_ROUND_PER_WORKER} requests in turn for ${report.soak.durationSeconds} s, sampled every ${report.soak.sampleSeconds} s` : `${method.requests} measured requests per point and target after ${method.warmup} warm-up; direct and relays in ${method.rounds} alternating rounds`}; ` +
      `closed loop, keep-alive; mock answers after ${method.mock.latencyMs} ms, ${method.mock.chunkIntervalMs} ms between ${method.mock.chunks} stream chunks; ` +
      `overhead = via − direct for the median and for the P95; CPU = user + sys of the relay process over its measured rounds / requests`,
    `${bullet}run: ${report.startedAt}, ${Math.round(report.durationSeconds)} s`,
  ];
}

/** What each model row measures, and the baseline it is compared with. */
function modelLines(relay: RelaySettings | undefined, bullet: string): string[] {
  if (relay?.models === undefined) return [];
  const rows = relay.models.map((model) =>
    model.translated
      ? `${model.name} (translated: the OpenAI call becomes an Anthropic Messages call to the mock's /v1/messages, its answer an OpenAI one)`
      : `${model.name} (passthrough: the OpenAI call forwarded to the mock's /v1/chat/completions)`,
  );
  return [
    `${bullet}models: ${relay.models.length > 1 ? "one Renio per model, measured in the same rounds: " : ""}${rows.join("; ")}`,
    `${bullet}direct, for every model: the client's own OpenAI request straight to the mock's /v1/chat/completions, so a translated row's overhead includes translating the request and the answer`,
  ];
}

/** The guarded Renios' policy, and what they are compared with. */
function guardrailsLines(relay: RelaySettings | undefined, bullet: string): string[] {
  const guardrails = relay?.guardrails;
  if (guardrails === undefined) return [];
  const actions = guardrails.settings.filter((setting) => setting !== "off");
  const side = guardrails.settings.length > 1 ? `one Renio per setting (${guardrails.settings.join(", ")}), measured in the same rounds, identical but for ` : "";
  return [
    `${bullet}guardrails: ${side}one policy (${guardrails.policy.id}) applying to every call: every built-in detector (${guardrails.policy.detectors.join(", ")}) over the request and the answer, ` +
      `matches ${actions.map((action) => (action === "log" ? "logged" : "redacted")).join(" or ")}; the request scan and the stream holdback are in the path (the bench's prompt and the mock's text hold nothing they match)`,
  ];
}

function journalText(relay: RelaySettings | undefined): string {
  if (relay?.journals !== undefined) return `one Renio per journal setting (${relay.journals.join(", ")}), measured in the same rounds`;
  return `journal ${relay?.journal === "off" ? "off" : `on (durability ${relay?.journal})`}`;
}

function capitalize(text: string): string {
  return text.charAt(0).toUpperCase() + text.slice(1);
}

/** How the report names the budget's scope (--budget-scope). */
const BUDGET_SCOPE_TEXT = { total: "one total budget", key: "one budget of the bench key", "end-user": "a per-end-user budget, one end user" } as const;
