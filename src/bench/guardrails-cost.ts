import type { BenchReport, GuardrailsCost, ModeResult } from "./bench-report.ts";
import { formatMs, renderTable, type TableFormat } from "./bench-table.ts";

/**
 * For each mode, point and guarded Renio measured beside its unguarded twin (--guardrails off,…):
 * its median and P95 overhead, and CPU per request, minus the twin's. In stream mode the overhead
 * is the first token's, so the difference is what the request scan and the holdback add to it.
 */
export function guardrailsCosts(modes: readonly ModeResult[]): GuardrailsCost[] {
  const costs: GuardrailsCost[] = [];
  for (const mode of modes) {
    for (const point of mode.points) {
      for (const relay of point.relays) {
        const twinId = relay.guardrails?.unguarded;
        const twin = twinId === undefined ? undefined : point.relays.find((candidate) => candidate.id === twinId);
        if (twin === undefined) continue;
        const cpu = relay.cpuPerRequestSeconds !== undefined && twin.cpuPerRequestSeconds !== undefined ? relay.cpuPerRequestSeconds - twin.cpuPerRequestSeconds : undefined;
        costs.push({
          mode: mode.mode,
          concurrency: point.concurrency,
          relay: relay.id,
          unguarded: twin.id,
          medianMs: relay.overhead.median - twin.overhead.median,
          p95Ms: relay.overhead.p95 - twin.overhead.p95,
          ...(cpu === undefined ? {} : { cpuPerRequestSeconds: cpu }),
        });
      }
    }
  }
  return costs;
}

/** The costs as a table: one row per mode, point and guarded Renio. */
export function guardrailsCostTable(report: BenchReport, format: TableFormat): string {
  const labelOf = (mode: string, concurrency: number, id: string) =>
    report.modes.find((m) => m.mode === mode)?.points.find((p) => p.concurrency === concurrency)?.relays.find((r) => r.id === id)?.label ?? id;
  const signed = (ms: number) => (Number.isFinite(ms) ? `${ms < 0 ? "" : "+"}${formatMs(ms)}` : "n/a");
  const header = ["Mode", "Concurrent requests", "Guarded", "Unguarded", "Median overhead added", "P95 overhead added", "CPU per request added"];
  const rows = (report.guardrailsCost ?? []).map((cost) => [
    cost.mode === "stream" ? "stream (first token)" : cost.mode,
    String(cost.concurrency),
    labelOf(cost.mode, cost.concurrency, cost.relay),
    labelOf(cost.mode, cost.concurrency, cost.unguarded),
    signed(cost.medianMs),
    signed(cost.p95Ms),
    cost.cpuPerRequestSeconds === undefined ? "n/a" : `${cost.cpuPerRequestSeconds < 0 ? "" : "+"}${Math.round(cost.cpuPerRequestSeconds * 1e6)} µs`,
  ]);
  return renderTable(header, rows, format);
}
