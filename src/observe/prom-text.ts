import type { Histogram } from "../shared/histogram.ts";
import { formatNanos } from "../shared/money.ts";

/**
 * Writing the Prometheus text exposition format 0.0.4: family headers, label sets (values
 * escaped: model names, projects and key ids are user data), samples and histograms.
 */

/** The Content-Type of a /metrics answer. */
export const PROM_CONTENT_TYPE = "text/plain; version=0.0.4; charset=utf-8";

/** A label value escaped for the text format: backslash, double quote and line feed. */
export function escapeLabelValue(value: string): string {
  return /[\\"\n]/.test(value) ? value.replace(/[\\"\n]/g, (c) => (c === "\n" ? "\\n" : `\\${c}`)) : value;
}

/** `name="value",…` (without braces) for label pairs; null or undefined values become "". */
export function labelText(pairs: ReadonlyArray<readonly [string, string | number | null | undefined]>): string {
  return pairs.map(([name, value]) => `${name}="${escapeLabelValue(value === null || value === undefined ? "" : String(value))}"`).join(",");
}

/** `# HELP` and `# TYPE` lines of one metric family. */
export function family(out: string[], name: string, type: "counter" | "gauge" | "histogram", help: string): void {
  out.push(`# HELP ${name} ${help.replace(/\\/g, "\\\\").replace(/\n/g, "\\n")}`, `# TYPE ${name} ${type}`);
}

/** One sample line; `labels` as from {@link labelText}. */
export function sample(out: string[], name: string, labels: string, value: number): void {
  out.push(`${name}${labels === "" ? "" : `{${labels}}`} ${formatValue(value)}`);
}

/** One sample of an amount of money, printed from its integer billionths (exact, no binary fraction). */
export function moneySample(out: string[], name: string, labels: string, nanos: number): void {
  out.push(`${name}${labels === "" ? "" : `{${labels}}`} ${formatNanos(nanos)}`);
}

/** The `_bucket` (cumulative, with +Inf), `_sum` and `_count` lines of one histogram. */
export function histogramSamples(out: string[], name: string, labels: string, histogram: Histogram): void {
  const prefix = labels === "" ? "" : `${labels},`;
  let cumulative = 0;
  for (let i = 0; i < histogram.bounds.length; i++) {
    cumulative += histogram.counts[i]!;
    out.push(`${name}_bucket{${prefix}le="${formatValue(histogram.bounds[i]!)}"} ${cumulative}`);
  }
  cumulative += histogram.counts[histogram.bounds.length]!;
  out.push(`${name}_bucket{${prefix}le="+Inf"} ${cumulative}`);
  sample(out, `${name}_sum`, labels, histogram.sum);
  sample(out, `${name}_count`, labels, histogram.count);
}

/** A sample value as the format writes it (Go float syntax: NaN, +Inf, -Inf). */
function formatValue(value: number): string {
  if (Number.isNaN(value)) return "NaN";
  if (value === Infinity) return "+Inf";
  if (value === -Infinity) return "-Inf";
  return String(value);
}
