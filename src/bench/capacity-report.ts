import type { MachineInfo } from "./bench-machine.ts";
import { renderTable, type TableFormat } from "./bench-table.ts";
import type { CapacityMeasure, CapacityPoint } from "./capacity-run.ts";

/** A whole `renio bench --mode capacity` run. */
export interface CapacityReport {
  readonly renioVersion: string;
  readonly startedAt: string;
  readonly durationSeconds: number;
  readonly method: {
    readonly concurrency: readonly number[];
    readonly requests: number;
    readonly warmupPerWorker: number;
    readonly mock: { readonly latencyMs: number; readonly chunkIntervalMs: number; readonly chunks: number };
    readonly model: string;
  };
  readonly machine: MachineInfo;
  /** The load average when the run started (1, 5, 15 minutes): others' load on a shared machine. */
  readonly loadAverage: readonly number[];
  readonly runtime: string;
  /** What each subject is (a Renio's journal and budget, the passthrough, the Go proxy, nginx). */
  readonly subjects: ReadonlyArray<{ readonly id: string; readonly label: string; readonly setup: string }>;
  readonly points: readonly CapacityPoint[];
}

/** Renders the capacity report as text tables, Markdown, or JSON. */
export function renderCapacityReport(report: CapacityReport, format: TableFormat | "json"): string {
  if (format === "json") return JSON.stringify(report, null, 2);
  const heading = (text: string) => (format === "markdown" ? `### ${text}` : text);
  const blocks = [heading("Capacity: streams held open at once (added = the server's figure minus direct's at the same point)"), capacityTable(report.points, format)];
  const goals = goalLines(report.points);
  if (goals.length > 0) blocks.push(heading("Against the Go reverse proxy"), goals.join("\n"));
  const errors = report.points.flatMap((point) => [point.direct, ...point.subjects].filter((m) => m.firstError !== undefined).map((m) => `c=${point.concurrency} ${m.label}: ${m.errors} failed, first: ${m.firstError}`));
  if (errors.length > 0) blocks.push(heading("Errors"), errors.join("\n"));
  blocks.push(heading("Setup"), setupLines(report).join("\n"));
  return blocks.join("\n\n");
}

function capacityTable(points: readonly CapacityPoint[], format: TableFormat): string {
  const header = ["Streams", "Server", "First token P50 (P95)", "Inter-chunk P50 / P99", "Calls/s (vs direct)", "CPU per call", "CPU per stream", "RSS per stream", "Errors"];
  const rows: string[][] = [];
  for (const point of points) {
    const { direct } = point;
    rows.push([
      String(point.concurrency),
      "direct (the mock)",
      `${ms(direct.firstToken.median)} (${ms(direct.firstToken.p95)})`,
      `${ms(direct.gap.median)} / ${ms(direct.gap.p99)}`,
      direct.callsPerSecond.toFixed(0),
      "",
      "",
      "",
      String(direct.errors),
    ]);
    for (const m of point.subjects) {
      rows.push([
        String(point.concurrency),
        m.label,
        `${signed(m.firstToken.median - direct.firstToken.median)} (${signed(m.firstToken.p95 - direct.firstToken.p95)})`,
        `${signed(m.gap.median - direct.gap.median)} / ${signed(m.gap.p99 - direct.gap.p99)}`,
        `${m.callsPerSecond.toFixed(0)} (${direct.callsPerSecond > 0 ? ((100 * m.callsPerSecond) / direct.callsPerSecond).toFixed(0) : "n/a"} %)`,
        cpuPerCall(m),
        cpuPerStream(m, point.concurrency),
        rssPerStream(m, point.concurrency),
        String(m.errors),
      ]);
    }
  }
  return renderTable(header, rows, format);
}

/** The goal of a Renio at a point: added first token within 2× the Go proxy's, added inter-chunk P99 within Go's + 1 ms. */
function goalLines(points: readonly CapacityPoint[]): string[] {
  const lines: string[] = [];
  for (const point of points) {
    const go = point.subjects.find((m) => m.id === "go");
    if (go === undefined) continue;
    const added = (m: CapacityMeasure) => m.firstToken.median - point.direct.firstToken.median;
    const gap99 = (m: CapacityMeasure) => m.gap.p99 - point.direct.gap.p99;
    for (const m of point.subjects.filter((s) => s.id.startsWith("renio"))) {
      const first = added(go) > 0 ? `${(added(m) / added(go)).toFixed(2)}× Go's added first token (goal ≤ 2)` : `added first token ${ms(added(m))}, Go's ${ms(added(go))}`;
      const gap = `added inter-chunk P99 ${signed(gap99(m) - gap99(go))} against Go's (goal ≤ +1 ms)`;
      lines.push(`c=${point.concurrency} ${m.label}: ${first}; ${gap}`);
    }
  }
  return lines;
}

function setupLines(report: CapacityReport): string[] {
  const { method, machine } = report;
  return [
    `renio ${report.renioVersion}, ${report.runtime}; ${report.startedAt}, ${report.durationSeconds.toFixed(0)} s`,
    `machine: ${machine.cpuModel}, ${machine.cores} cores, ${machine.memoryGiB} GiB, ${machine.os}; load average at start ${report.loadAverage.map((v) => v.toFixed(2)).join(" / ")}`,
    `mock: ${method.mock.chunks} chunks ${method.mock.chunkIntervalMs} ms apart after ${method.mock.latencyMs} ms; model ${method.model}`,
    `load: one kept-alive connection and one stream per worker (plain sockets), ${method.warmupPerWorker} warm-up call(s) per worker, then at least ${method.requests} measured calls per server and point; workers start spread over one stream's length`,
    ...report.subjects.map((s) => `${s.label}: ${s.setup}`),
    "CPU per stream: CPU time of the server's process per second of wall time, divided by the streams open; RSS per stream: its peak RSS minus its RSS before any load, divided by the streams open",
  ];
}

function ms(value: number): string {
  return Number.isFinite(value) ? `${value.toFixed(2)} ms` : "n/a";
}

/** A difference with its sign (`+1.23 ms`, `-0.40 ms`). */
function signed(value: number): string {
  return Number.isFinite(value) ? `${value < 0 ? "-" : "+"}${Math.abs(value).toFixed(2)} ms` : "n/a";
}

function cpuPerCall(m: CapacityMeasure): string {
  return m.cpuSeconds === undefined || !m.callsServed ? "n/a" : `${Math.round((m.cpuSeconds / m.callsServed) * 1e6)} µs`;
}

function cpuPerStream(m: CapacityMeasure, streams: number): string {
  return m.cpuSeconds === undefined || !m.wallSeconds ? "n/a" : `${((m.cpuSeconds / m.wallSeconds / streams) * 1e6).toFixed(0)} µs/s`;
}

function rssPerStream(m: CapacityMeasure, streams: number): string {
  if (m.rssPeakBytes === undefined || m.rssStartBytes === undefined) return "n/a";
  return `${(Math.max(0, m.rssPeakBytes - m.rssStartBytes) / streams / 1024).toFixed(1)} KiB`;
}
