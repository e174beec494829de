import { createRequire } from "node:module";

/** One sample of a family, as the parser returns it (histograms: see {@link Scrape}). */
export interface ParsedMetric {
  value?: string;
  labels?: Record<string, string>;
}

/** One metric family, as the parser returns it (prom2json's shape). */
export interface ParsedFamily {
  name: string;
  help: string;
  type: "COUNTER" | "GAUGE" | "HISTOGRAM" | "SUMMARY" | "UNTYPED";
  metrics: ParsedMetric[];
}

// The package ships CommonJS without types; required the same way on Bun and Deno.
const parsePrometheusTextFormat = createRequire(import.meta.url)("parse-prometheus-text-format") as (text: string) => ParsedFamily[];

/** One labelled histogram series as parsed. */
export interface HistogramSeries {
  /** Its labels, `le` aside. */
  labels: Record<string, string>;
  /** [le, cumulative count] in the order the page lists them (+Inf as Infinity). */
  buckets: Array<[number, number]>;
  sum: number;
  count: number;
}

/**
 * A /metrics page parsed by a real exposition-format parser (parse-prometheus-text-format),
 * by family name. That parser folds every series of a labelled histogram into one and drops
 * their _sum and _count (yunyu/parse-prometheus-text-format#8, #13), so histogram series are
 * read from a second parse of the same page with the histogram TYPE lines read as untyped:
 * the parser then returns the `_bucket`, `_sum` and `_count` samples with all their labels.
 */
export class Scrape {
  readonly families: Map<string, ParsedFamily>;
  private readonly samples: Map<string, ParsedFamily>;
  constructor(readonly text: string) {
    this.families = byName(parsePrometheusTextFormat(text));
    this.samples = byName(parsePrometheusTextFormat(text.replace(/^# TYPE (\S+) histogram$/gm, "# TYPE $1 untyped")));
  }

  /** The samples of a family (none when it is absent or empty). */
  metrics(name: string): ParsedMetric[] {
    return this.families.get(name)?.metrics ?? [];
  }

  /** Sum of a counter's or gauge's samples whose labels include `match`. */
  sum(name: string, match: Record<string, string> = {}): number {
    return this.metrics(name)
      .filter((metric) => matches(metric, match))
      .reduce((total, metric) => total + Number(metric.value), 0);
  }

  /** The series of a histogram family. */
  histogram(name: string): HistogramSeries[] {
    const series = new Map<string, HistogramSeries>();
    const seriesOf = (labels: Record<string, string>): HistogramSeries => {
      const { le: _le, ...rest } = labels;
      const id = JSON.stringify(Object.entries(rest).sort());
      let found = series.get(id);
      if (found === undefined) series.set(id, (found = { labels: rest, buckets: [], sum: NaN, count: NaN }));
      return found;
    };
    for (const metric of this.samples.get(`${name}_bucket`)?.metrics ?? []) {
      const le = metric.labels?.le ?? "";
      seriesOf(metric.labels ?? {}).buckets.push([le === "+Inf" ? Infinity : Number(le), Number(metric.value)]);
    }
    for (const metric of this.samples.get(`${name}_sum`)?.metrics ?? []) seriesOf(metric.labels ?? {}).sum = Number(metric.value);
    for (const metric of this.samples.get(`${name}_count`)?.metrics ?? []) seriesOf(metric.labels ?? {}).count = Number(metric.value);
    return [...series.values()];
  }
}

/** Families by name; a name that comes back (the untyped parse of interleaved histogram lines) gathers all its samples. */
function byName(families: ParsedFamily[]): Map<string, ParsedFamily> {
  const named = new Map<string, ParsedFamily>();
  for (const family of families) {
    const seen = named.get(family.name);
    if (seen === undefined) named.set(family.name, { ...family, metrics: [...family.metrics] });
    else seen.metrics.push(...family.metrics);
  }
  return named;
}

function matches(metric: ParsedMetric, match: Record<string, string>): boolean {
  return Object.entries(match).every(([label, value]) => metric.labels?.[label] === value);
}

/** GETs /metrics with `token` (none: no Authorization). */
export async function scrape(url: string, token?: string): Promise<{ status: number; contentType: string | null; text: string }> {
  const response = await fetch(`${url}/metrics`, token === undefined ? {} : { headers: { authorization: `Bearer ${token}` } });
  return { status: response.status, contentType: response.headers.get("content-type"), text: await response.text() };
}
