import { parseArgs } from "node:util";

/** Which request shapes to measure. */
export type BenchMode = "json" | "stream";

/** Journal setting of the relay under test. */
export type JournalSetting = "fsync" | "process" | "off";

/** Budget setting of the relay under test. */
export type BudgetSetting = "strict" | "observe" | "off";

/** Output format of the report. */
export type ReportFormat = "text" | "markdown" | "json";

/** Everything `renio bench` was asked to do, validated. */
export interface BenchOptions {
  readonly concurrency: readonly number[];
  readonly requests: number;
  readonly warmup: number;
  /** Alternating rounds per point and target (each round runs requests / rounds). */
  readonly rounds: number;
  readonly modes: readonly BenchMode[];
  readonly journal: JournalSetting;
  readonly budget: BudgetSetting;
  readonly format: ReportFormat;
  readonly out: string | undefined;
  /** Another relay or gateway to measure instead of a Renio started here (full chat completions URL). */
  readonly target: string | undefined;
  /** Extra headers sent to the target, in order. */
  readonly headers: ReadonlyArray<readonly [string, string]>;
  /** Also measure a bare fetch passthrough as the floor. */
  readonly baseline: "passthrough" | undefined;
  /** Model name in the request body. */
  readonly model: string;
  /** Port for the mock (0 picks one); fix it when a --target gateway must forward to the mock. */
  readonly mockPort: number;
  /** Overall deadline for the whole run, in seconds. */
  readonly maxSeconds: number;
}

/** A command-line mistake in `renio bench` arguments. */
export class BenchUsageError extends Error {
  override name = "BenchUsageError";
}

/** `renio bench --help`. */
export const BENCH_HELP = `usage: renio bench [options]

  --concurrency 1,16,64       points (concurrent requests)
  --requests 3000             measured requests per point and target
  --warmup 300                warm-up requests per point and target (not measured)
  --mode json|stream|both     non-streaming, streaming (time to first data: chunk), or both
  --journal fsync|process|off relay journal durability, or no journal (and so no budget)
  --budget strict|observe|off mode of a large total budget, or no budget
  --baseline passthrough      also measure a bare fetch passthrough (the floor)
  --target URL                measure another relay or gateway instead (it must forward to the mock;
  --header 'Name: value'        see --mock-port); --header is repeatable
  --mock-port N               port of the mock (default: any free port)
  --model NAME                model in the request body (default mock-gpt)
  --rounds 10                 alternating direct / relay rounds per point
  --max-seconds 1800          overall deadline
  --json | --markdown         report format (default: text tables)
  --out FILE                  also write the report to FILE`;

const DEFAULTS = { concurrency: "1,16,64", requests: "3000", warmup: "300", rounds: "10", mode: "both", maxSeconds: "1800" } as const;

/** Parses and validates `renio bench` arguments; throws {@link BenchUsageError}. */
export function parseBenchArgs(args: readonly string[]): BenchOptions {
  let parsed;
  try {
    parsed = parseArgs({
      args: [...args],
      strict: true,
      allowPositionals: false,
      options: {
        concurrency: { type: "string" },
        requests: { type: "string" },
        warmup: { type: "string" },
        rounds: { type: "string" },
        mode: { type: "string" },
        journal: { type: "string" },
        budget: { type: "string" },
        json: { type: "boolean" },
        markdown: { type: "boolean" },
        out: { type: "string" },
        target: { type: "string" },
        header: { type: "string", multiple: true },
        baseline: { type: "string" },
        model: { type: "string" },
        "mock-port": { type: "string" },
        "max-seconds": { type: "string" },
      },
    });
  } catch (error) {
    throw new BenchUsageError(error instanceof Error ? error.message : String(error));
  }
  const v = parsed.values;
  const concurrency = (v.concurrency ?? DEFAULTS.concurrency).split(",").map((part) => integer("--concurrency", part.trim(), 1, 10_000));
  if (new Set(concurrency).size !== concurrency.length) throw new BenchUsageError("--concurrency has a repeated value");
  const requests = integer("--requests", v.requests ?? DEFAULTS.requests, 1, 10_000_000);
  const warmup = integer("--warmup", v.warmup ?? DEFAULTS.warmup, 0, 10_000_000);
  const rounds = Math.min(integer("--rounds", v.rounds ?? DEFAULTS.rounds, 1, 1000), requests);
  const mode = oneOf("--mode", v.mode ?? DEFAULTS.mode, ["json", "stream", "both"] as const);
  if (v.json && v.markdown) throw new BenchUsageError("--json and --markdown exclude each other");
  const target = v.target === undefined ? undefined : targetUrl(v.target);
  const headers = (v.header ?? []).map(headerPair);
  if (headers.length > 0 && target === undefined) throw new BenchUsageError("--header applies to --target only");
  if (target !== undefined && (v.journal !== undefined || v.budget !== undefined)) {
    throw new BenchUsageError("--journal and --budget configure the Renio started here; they do not apply to --target");
  }
  const journal = oneOf("--journal", v.journal ?? "fsync", ["fsync", "process", "off"] as const);
  if (journal === "off" && v.budget !== undefined && v.budget !== "off") throw new BenchUsageError("budgets need the journal: --journal off runs without a budget");
  const budget = journal === "off" ? "off" : oneOf("--budget", v.budget ?? "strict", ["strict", "observe", "off"] as const);
  const baseline = v.baseline === undefined ? undefined : oneOf("--baseline", v.baseline, ["passthrough"] as const);
  return {
    concurrency,
    requests,
    warmup,
    rounds,
    modes: mode === "both" ? ["json", "stream"] : [mode],
    journal,
    budget,
    format: v.json ? "json" : v.markdown ? "markdown" : "text",
    out: v.out,
    target,
    headers,
    baseline,
    model: v.model ?? "mock-gpt",
    mockPort: integer("--mock-port", v["mock-port"] ?? "0", 0, 65_535),
    maxSeconds: integer("--max-seconds", v["max-seconds"] ?? DEFAULTS.maxSeconds, 1, 7 * 24 * 3600),
  };
}

function integer(name: string, text: string, min: number, max: number): number {
  const value = Number(text);
  if (text === "" || !Number.isInteger(value) || value < min || value > max) {
    throw new BenchUsageError(`${name} must be an integer from ${min} to ${max}, got "${text}"`);
  }
  return value;
}

function oneOf<const T extends string>(name: string, text: string, allowed: readonly T[]): T {
  if ((allowed as readonly string[]).includes(text)) return text as T;
  throw new BenchUsageError(`${name} must be one of ${allowed.join(", ")}, got "${text}"`);
}

function headerPair(text: string): readonly [string, string] {
  const colon = text.indexOf(":");
  const name = colon < 0 ? "" : text.slice(0, colon).trim();
  if (!/^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/.test(name)) throw new BenchUsageError(`--header must look like 'Name: value', got "${text}"`);
  return [name, text.slice(colon + 1).trim()];
}

/**
 * The chat completions URL for a --target: used as given when it ends in
 * `/chat/completions`, else `/chat/completions` (after `/v1`) is appended.
 */
export function targetUrl(text: string): string {
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    throw new BenchUsageError(`--target must be an http(s) URL, got "${text}"`);
  }
  if (url.protocol !== "http:" && url.protocol !== "https:") throw new BenchUsageError(`--target must be an http(s) URL, got "${text}"`);
  const path = url.pathname.replace(/\/+$/, "");
  if (path.endsWith("/chat/completions")) url.pathname = path;
  else if (path.endsWith("/v1")) url.pathname = `${path}/chat/completions`;
  else url.pathname = `${path}/v1/chat/completions`;
  return url.toString();
}
