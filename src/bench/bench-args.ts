import { parseInteger, parseOptions, UsageError } from "../shared/cli-args.ts";
import { lookupTable } from "../shared/own-keys.ts";

/** Which request shapes to measure. */
export type BenchMode = "json" | "stream";

/** The servers capacity mode starts to compare Renio with. */
export type ReferenceProxy = "go" | "nginx";

/** Capacity mode (--mode capacity): long streams, thousands at once, side by side with references. */
export interface CapacityOptions {
  /** Content chunks per stream and the pause between them (the mock's). */
  readonly chunks: number;
  readonly chunkIntervalMs: number;
  readonly compare: readonly ReferenceProxy[];
  /** A built Go proxy (else built from bench/go-proxy with `go`). */
  readonly goProxy: string | undefined;
  /** The nginx binary (default `nginx` from PATH). */
  readonly nginx: string;
}

/** Journal setting of the relay under test. */
export type JournalSetting = "fsync" | "process" | "off";

/** A value of --event-loops: a count, or `auto`. */
export type EventLoopsSetting = number | "auto";

/** Budget setting of the relay under test. */
export type BudgetSetting = "strict" | "observe" | "off";
/** What the bench budget covers: every call, the bench key, or each end user (every call names the end user `bench-user`). */
export type BudgetScopeSetting = "total" | "key" | "end-user";

/** Storage of the relay under test: a temporary SQLite file, or PostgreSQL (throwaway or --pg-url). */
export type StorageSetting = "sqlite" | "postgres";

/**
 * Guardrails of a Renio under test: none, or one policy over every call with every built-in
 * detector on requests and answers, matches logged or redacted (so the request scan and the
 * stream holdback are in the path).
 */
export type GuardrailsSetting = "off" | "log" | "redact";

/**
 * What else a Renio under test does on each call: nothing more (`off`), rate limits in memory
 * (`limits`) or shared through Redis (`redis-limits`), or the response cache (`cache`: every
 * measured call after the first is a hit).
 */
export type FeatureSetting = "off" | "limits" | "redis-limits" | "cache";

/** Output format of the report. */
export type ReportFormat = "text" | "markdown" | "json";

/** A model measured through Renio: passthrough, or served by an Anthropic-format upstream through translation. */
export interface BenchModel {
  /** The model in the request body (the public name). */
  readonly name: string;
  /** Named `…-translated`: routed to the mock's Anthropic wire with `translate: true`. */
  readonly translated: boolean;
}

/** The suffix that marks a --model as translated. */
export const TRANSLATED_SUFFIX = "-translated";

/** Everything `renio bench` was asked to do, validated. */
export interface BenchOptions {
  readonly concurrency: readonly number[];
  readonly requests: number;
  readonly warmup: number;
  /** Alternating rounds per point and target (each round runs requests / rounds). */
  readonly rounds: number;
  readonly modes: readonly BenchMode[];
  /** The first of {@link journals}. */
  readonly journal: JournalSetting;
  /** One Renio per setting, measured in the same rounds (e.g. fsync and process side by side). */
  readonly journals: readonly JournalSetting[];
  readonly budget: BudgetSetting;
  readonly budgetScope: BudgetScopeSetting;
  /** One Renio per storage and journal setting (e.g. sqlite and postgres side by side). */
  readonly storages: readonly StorageSetting[];
  /** One Renio per setting, measured in the same rounds (e.g. off and redact side by side). */
  readonly guardrails: readonly GuardrailsSetting[];
  /** One Renio per setting (--features); default `off` alone. */
  readonly features: readonly FeatureSetting[];
  /** An existing Redis for `redis-limits` (else a throwaway redis-server is started). */
  readonly redisUrl: string | undefined;
  /** The PostgreSQL to use instead of a throwaway server. */
  readonly pgUrl: string | undefined;
  readonly format: ReportFormat;
  readonly out: string | undefined;
  /** Another relay or gateway to measure instead of a Renio started here (full chat completions URL). */
  readonly target: string | undefined;
  /** Extra headers sent to the target, in order. */
  readonly headers: ReadonlyArray<readonly [string, string]>;
  /** Also measure a bare fetch passthrough as the floor. */
  readonly baseline: "passthrough" | undefined;
  /** The first of {@link models}: the model in the request body of direct (and of a --target or the passthrough). */
  readonly model: string;
  /** One Renio per model, measured in the same rounds (e.g. a passthrough and a translated model side by side). */
  readonly models: readonly BenchModel[];
  /** Port for the mock (0 picks one); fix it when a --target gateway must forward to the mock. */
  readonly mockPort: number;
  /** Overall deadline for the whole run, in seconds. */
  readonly maxSeconds: number;
  /** Soak mode (--duration): a bounded-time run sampling the relay over time, instead of the points. */
  readonly soak: { readonly durationSeconds: number; readonly sampleSeconds: number } | undefined;
  /** Capacity mode (--mode capacity), instead of the points of `modes`. */
  readonly capacity: CapacityOptions | undefined;
  /** How the Renios started here call the mock (server.upstreamClient; default theirs). */
  readonly upstreamClient: "auto" | "socket" | "fetch" | undefined;
  /** One Renio per value (server.eventLoops); empty: Renio's default. */
  readonly eventLoops: readonly EventLoopsSetting[];
}

const BENCH_OPTIONS = {
  concurrency: { type: "string" },
  requests: { type: "integer", min: 1, max: 10_000_000 },
  warmup: { type: "integer", min: 0, max: 10_000_000, default: 300 },
  rounds: { type: "integer", min: 1, max: 1000, default: 10 },
  mode: { type: "string", oneOf: ["json", "stream", "both", "capacity"], default: "both" },
  chunks: { type: "integer", min: 1, max: 4096 },
  "chunk-interval-ms": { type: "integer", min: 0, max: 60_000 },
  compare: { type: "string" },
  "go-proxy": { type: "string", valueName: "a file" },
  nginx: { type: "string", valueName: "a file" },
  "upstream-client": { type: "string", oneOf: ["auto", "socket", "fetch"] },
  "event-loops": { type: "string" },
  journal: { type: "string" },
  budget: { type: "string", oneOf: ["strict", "observe", "off"] },
  "budget-scope": { type: "string", oneOf: ["total", "key", "end-user"] },
  storage: { type: "string" },
  "pg-url": { type: "string", valueName: "a URL" },
  guardrails: { type: "string" },
  features: { type: "string" },
  "redis-url": { type: "string", valueName: "a URL" },
  json: { type: "boolean" },
  markdown: { type: "boolean" },
  out: { type: "string", valueName: "a file" },
  target: { type: "string", valueName: "a URL" },
  header: { type: "string", multiple: true },
  baseline: { type: "string", oneOf: ["passthrough"] },
  model: { type: "string", default: "mock-gpt" },
  "mock-port": { type: "integer", min: 0, max: 65_535, default: 0 },
  "max-seconds": { type: "integer", min: 1, max: 7 * 24 * 3600, default: 1800 },
  duration: { type: "string", valueName: "a duration" },
  "sample-seconds": { type: "integer", min: 1, max: 3600 },
} as const;

/** Parses and validates `renio bench` arguments; throws {@link UsageError}. */
export function parseBenchArgs(args: readonly string[]): BenchOptions {
  const v = parseOptions(args, BENCH_OPTIONS).values;
  const soak = v.duration === undefined ? undefined : soakPlan(v.duration, v["sample-seconds"]);
  if (soak === undefined && v["sample-seconds"] !== undefined) throw new UsageError("--sample-seconds applies to --duration only");
  const capacity = v.mode === "capacity" ? capacityPlan(v) : undefined;
  if (capacity === undefined && (v.chunks !== undefined || v["chunk-interval-ms"] !== undefined || v.compare !== undefined || v["go-proxy"] !== undefined || v.nginx !== undefined)) {
    throw new UsageError("--chunks, --chunk-interval-ms, --compare, --go-proxy and --nginx apply to --mode capacity only");
  }
  if (capacity !== undefined && soak !== undefined) throw new UsageError("--mode capacity and --duration exclude each other");
  const concurrency = (v.concurrency ?? (soak ? "64" : capacity ? "256,1024,4096" : "1,16,64")).split(",").map((part) => parseInteger("--concurrency", part.trim(), 1, 10_000));
  if (new Set(concurrency).size !== concurrency.length) throw new UsageError("--concurrency has a repeated value");
  if (v.json && v.markdown) throw new UsageError("--json and --markdown exclude each other");
  const requests = v.requests ?? (capacity ? 2048 : 3000);
  if (capacity !== undefined && v.target !== undefined) throw new UsageError("--mode capacity starts its own servers; --target does not apply (use --compare)");
  const target = v.target === undefined ? undefined : targetUrl(v.target);
  const headers = v.header.map(headerPair);
  if (headers.length > 0 && target === undefined) throw new UsageError("--header applies to --target only");
  if (target !== undefined && (v.journal !== undefined || v.budget !== undefined || v["budget-scope"] !== undefined || v.storage !== undefined || v["pg-url"] !== undefined || v.guardrails !== undefined)) {
    throw new UsageError("--journal, --budget, --storage, --pg-url and --guardrails configure the Renio started here; they do not apply to --target (configure the target's own guardrails)");
  }
  if (capacity !== undefined && v.guardrails !== undefined) throw new UsageError("--guardrails applies to --mode json, stream or both; --mode capacity runs its Renios without guardrails");
  const guardrails = settingList("--guardrails", v.guardrails ?? "off", GUARDRAILS_SETTINGS);
  if ((capacity !== undefined || target !== undefined || soak !== undefined) && v.features !== undefined) throw new UsageError("--features applies to the Renios --mode json, stream or both start here");
  const features = settingList("--features", v.features ?? "off", FEATURE_SETTINGS);
  if (features.length > 1 && (guardrails.length > 1 || v.journal?.includes(",") || v.storage?.includes(","))) throw new UsageError("--features takes a list only with one --journal, --storage and --guardrails setting");
  const redisUrl = v["redis-url"];
  if (redisUrl !== undefined && !/^rediss?:\/\//.test(redisUrl)) throw new UsageError("--redis-url must start with redis:// or rediss://");
  if (redisUrl !== undefined && !features.includes("redis-limits")) throw new UsageError("--redis-url applies to --features redis-limits only");
  const journals = settingList("--journal", v.journal ?? (capacity ? "fsync,off" : "fsync"), JOURNAL_SETTINGS);
  const storages = settingList("--storage", v.storage ?? "sqlite", STORAGE_SETTINGS);
  const pgUrl = v["pg-url"] === undefined ? undefined : postgresUrl(v["pg-url"]);
  if (pgUrl !== undefined && !storages.includes("postgres")) throw new UsageError("--pg-url applies to --storage postgres only");
  const models = modelList(v.model);
  if (models.length > 1 && target !== undefined) throw new UsageError("--model takes a list for the Renio started here only; --target measures one model");
  const journal = journals[0]!;
  if (soak !== undefined) {
    if (concurrency.length > 1) throw new UsageError("--duration runs one concurrency: give --concurrency a single value");
    if (journals.length > 1 || models.length > 1 || target !== undefined || v.baseline !== undefined) throw new UsageError("--duration soaks one Renio started here: no --journal or --model list, --target or --baseline");
    if (storages.length > 1) throw new UsageError("--duration soaks one Renio started here: no --storage list");
    if (guardrails.length > 1) throw new UsageError("--duration soaks one Renio started here: give --guardrails a single value");
    if (soak.durationSeconds > v["max-seconds"]) throw new UsageError("--duration is longer than --max-seconds");
  }
  const allOff = journals.every((setting) => setting === "off");
  if (allOff && v.budget !== undefined && v.budget !== "off") throw new UsageError("budgets need the journal: --journal off runs without a budget");
  return {
    concurrency,
    requests,
    warmup: v.warmup,
    rounds: Math.min(v.rounds, requests),
    modes: v.mode === "both" ? ["json", "stream"] : v.mode === "capacity" ? [] : [v.mode],
    journal,
    journals,
    budget: allOff ? "off" : (v.budget ?? "strict"),
    budgetScope: v["budget-scope"] ?? "total",
    storages,
    guardrails,
    features,
    redisUrl,
    pgUrl,
    format: v.json ? "json" : v.markdown ? "markdown" : "text",
    out: v.out,
    target,
    headers,
    baseline: v.baseline,
    model: models[0]!.name,
    models,
    mockPort: v["mock-port"],
    maxSeconds: v["max-seconds"],
    soak,
    capacity,
    upstreamClient: v["upstream-client"] as BenchOptions["upstreamClient"],
    eventLoops: v["event-loops"] === undefined ? [] : eventLoopsList(v["event-loops"]),
  };
}

const REFERENCES: readonly ReferenceProxy[] = ["go", "nginx"];

/** The capacity settings (--mode capacity). */
function capacityPlan(v: { chunks?: number; "chunk-interval-ms"?: number; compare?: string; "go-proxy"?: string; nginx?: string }): CapacityOptions {
  const compare = v.compare === undefined ? [] : settingList("--compare", v.compare, REFERENCES);
  if (v["go-proxy"] !== undefined && !compare.includes("go")) throw new UsageError("--go-proxy applies to --compare go only");
  if (v.nginx !== undefined && !compare.includes("nginx")) throw new UsageError("--nginx applies to --compare nginx only");
  return { chunks: v.chunks ?? 20, chunkIntervalMs: v["chunk-interval-ms"] ?? 250, compare, goProxy: v["go-proxy"], nginx: v.nginx ?? "nginx" };
}

const DURATION_UNITS = lookupTable({ s: 1, m: 60, h: 3600 });

/** `--duration 90s|10m|2h` and the sampling interval (a tenth of it, 1 to 60 s, unless given). */
function soakPlan(text: string, sampleSeconds: number | undefined): { durationSeconds: number; sampleSeconds: number } {
  const match = /^([1-9]\d{0,5})(s|m|h)$/.exec(text.trim());
  if (match === null) throw new UsageError(`--duration must be a number of seconds, minutes or hours (90s, 10m, 2h), got "${text}"`);
  const durationSeconds = Number(match[1]) * DURATION_UNITS.get(match[2]!)!;
  const interval = sampleSeconds ?? Math.min(60, Math.max(1, Math.round(durationSeconds / 10)));
  if (interval > durationSeconds) throw new UsageError("--sample-seconds is longer than --duration");
  return { durationSeconds, sampleSeconds: interval };
}

const JOURNAL_SETTINGS: readonly JournalSetting[] = ["fsync", "process", "off"];

const STORAGE_SETTINGS: readonly StorageSetting[] = ["sqlite", "postgres"];

const GUARDRAILS_SETTINGS: readonly GuardrailsSetting[] = ["off", "log", "redact"];
const FEATURE_SETTINGS: readonly FeatureSetting[] = ["off", "limits", "redis-limits", "cache"];

/** A comma-separated list of distinct settings, each one of `allowed`. */
function settingList<T extends string>(flag: string, text: string, allowed: readonly T[]): T[] {
  const parts = text.split(",").map((part) => part.trim());
  for (const part of parts) {
    if (!(allowed as readonly string[]).includes(part)) throw new UsageError(`${flag} must be one of ${allowed.join(", ")} (or a list of them), got "${part}"`);
  }
  if (new Set(parts).size !== parts.length) throw new UsageError(`${flag} has a repeated value`);
  return parts as T[];
}

/** A `postgres://` or `postgresql://` URL. */
function postgresUrl(text: string): string {
  if (!/^postgres(ql)?:\/\/[^/]/.test(text) || !URL.canParse(text)) throw new UsageError("--pg-url must be a URL like postgres://user:password@host:5432/database");
  return text;
}

function modelList(text: string): BenchModel[] {
  const names = text.split(",").map((part) => part.trim());
  if (names.some((name) => name === "")) throw new UsageError(`--model has an empty name in "${text}"`);
  if (new Set(names).size !== names.length) throw new UsageError("--model has a repeated value");
  return names.map((name) => ({ name, translated: name.endsWith(TRANSLATED_SUFFIX) }));
}

function headerPair(text: string): readonly [string, string] {
  const colon = text.indexOf(":");
  const name = colon < 0 ? "" : text.slice(0, colon).trim();
  if (!/^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/.test(name)) throw new UsageError(`--header must look like 'Name: value', got "${text}"`);
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
    throw new UsageError(`--target must be an http(s) URL, got "${text}"`);
  }
  if (url.protocol !== "http:" && url.protocol !== "https:") throw new UsageError(`--target must be an http(s) URL, got "${text}"`);
  const path = url.pathname.replace(/\/+$/, "");
  if (path.endsWith("/chat/completions")) url.pathname = path;
  else if (path.endsWith("/v1")) url.pathname = `${path}/chat/completions`;
  else url.pathname = `${path}/v1/chat/completions`;
  return url.toString();
}

/** --event-loops: counts (1-64) or `auto`, comma-separated, each once. */
function eventLoopsList(value: string): EventLoopsSetting[] {
  const items = value.split(",").map((item) => item.trim());
  const loops = items.map((item): EventLoopsSetting => {
    if (item === "auto") return "auto";
    const count = /^\d+$/.test(item) ? Number(item) : Number.NaN;
    if (!Number.isInteger(count) || count < 1 || count > 64) throw new UsageError(`--event-loops: "${item}" is not a count from 1 to 64 or auto (e.g. --event-loops 1,2)`);
    return count;
  });
  if (new Set(loops).size !== loops.length) throw new UsageError(`--event-loops: "${value}" names a value twice`);
  return loops;
}
