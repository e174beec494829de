import { execFileSync } from "node:child_process";
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Runtime } from "../runtime/runtime.ts";
import { usageLine, UsageError } from "../shared/cli-args.ts";
import { parseBenchArgs, type BenchMode, type BenchOptions } from "./bench-args.ts";
import { BENCH_HELP } from "./bench-help.ts";
import { startChildServer, type ChildServer } from "./bench-child.ts";
import { machineInfo } from "./bench-machine.ts";
import { createProgress } from "./bench-progress.ts";
import { benchRelayConfig, benchSecret, relaySettings, relayVariants, SQLITE_STORAGE, uncheckedKey, uncheckedSecret, withEventLoops, BENCH_END_USER } from "./bench-relay-config.ts";
import { givenPostgres, startThrowawayPostgres, type BenchPostgres } from "./bench-postgres.ts";
import { renderReport, type BenchReport } from "./bench-report.ts";
import { DISK_FLOOR_PLAN, measureDiskFloors } from "./disk-floor.ts";
import { durableWriteCosts } from "./durable-write.ts";
import { guardrailsCosts } from "./guardrails-cost.ts";
import { measureRedisRoundTrip, startThrowawayRedis, UNCHECKED_SUFFIX, type BenchRedis, type RedisRoundTrip } from "./bench-redis.ts";
import type { FeatureSetting } from "./bench-args.ts";

/** How a Renio's label names what it does besides relaying (--features). */
const FEATURE_LABELS: Readonly<Record<Exclude<FeatureSetting, "off">, string>> = { limits: "rate limits in memory", "redis-limits": "rate limits on Redis", cache: "cache hits" };
import { runSoak } from "./soak.ts";
import { runCapacityBench } from "./capacity-command.ts";
import { runMeasurements, type MeasuredRelay } from "./bench-run.ts";
import { readJournalWrites } from "./journal-writes.ts";
import { clockTicksPerSecond, createProcessProbe } from "./process-usage.ts";

/** The mock's timing, per the published methodology. */
export const BENCH_MOCK = { latencyMs: 2, chunkIntervalMs: 1, chunks: 8 } as const;

/**
 * About the idle a lone caller's admissions leave the disk between two calls against the
 * bench's mock: its whole answer (2 ms; a stream's 8 chunks 1 ms apart after it), plus ~1 ms of
 * the call itself. The paced disk floor is measured after each.
 */
export const pauseOfMode = (mode: BenchMode): number =>
  BENCH_MOCK.latencyMs + (mode === "stream" ? BENCH_MOCK.chunks * BENCH_MOCK.chunkIntervalMs : 0) + 1;

const CHAT_PATH = "/v1/chat/completions";

/**
 * `renio bench`: starts the mock, the relay (and the passthrough floor) as
 * separate processes of this same program, measures, prints the report on
 * stdout (progress on stderr). Returns the exit code.
 */
export async function runBenchCommand(args: string[], runtime: Runtime): Promise<number> {
  if (args.includes("--help") || args.includes("-h")) {
    process.stdout.write(`${BENCH_HELP}\n`);
    return 0;
  }
  let options: BenchOptions;
  try {
    options = parseBenchArgs(args);
  } catch (error) {
    if (!(error instanceof UsageError)) throw error;
    process.stderr.write(`${usageLine("bench", error)}\n`);
    return 2;
  }
  const progress = createProgress();
  const started = Date.now();
  const deadline = new AbortController();
  const deadlineTimer = setTimeout(() => deadline.abort(), options.maxSeconds * 1000);
  const self = runtime.selfCommand();
  const dir = mkdtempSync(join(tmpdir(), "renio-bench-"));
  const children: ChildServer[] = [];
  let postgres: BenchPostgres | undefined;
  let redis: BenchRedis | undefined;
  let redisRoundTrip: RedisRoundTrip | undefined;
  try {
    if (options.capacity !== undefined) {
      const { text, failed } = await runCapacityBench({ options: { ...options, capacity: options.capacity }, runtime, self, dir, progress, signal: deadline.signal, children, version: versionOf(self) });
      await new Promise<void>((resolve) => process.stdout.write(`${text}\n`, () => resolve()));
      if (options.out !== undefined) writeFileSync(options.out, `${text}\n`);
      return failed ? 1 : 0;
    }
    progress.update("starting the mock");
    const mock = await startChildServer("mock", [
      ...self, "mock", "--answer", "fill", "--host", "127.0.0.1", "--port", String(options.mockPort),
      "--latency-ms", String(BENCH_MOCK.latencyMs), "--chunk-interval-ms", String(BENCH_MOCK.chunkIntervalMs), "--chunks", String(BENCH_MOCK.chunks),
    ]);
    children.push(mock);
    const relays: MeasuredRelay[] = [];
    const ticks = clockTicksPerSecond();
    let directHeaders: ReadonlyArray<readonly [string, string]> = options.headers;
    progress.update("measuring the disk's O_DSYNC write floor");
    const diskFloor = await measureDiskFloors(dir, DISK_FLOOR_PLAN, options.modes.map(pauseOfMode));
    if (options.target === undefined) {
      const secret = benchSecret();
      const metricsToken = benchSecret();
      directHeaders = [["authorization", `Bearer ${secret}`], ...(options.budgetScope === "end-user" ? [BENCH_END_USER] : [])];
      if (options.storages.includes("postgres")) {
        progress.update(options.pgUrl === undefined ? "starting a throwaway PostgreSQL" : "using the given PostgreSQL");
        postgres = options.pgUrl === undefined ? await startThrowawayPostgres() : givenPostgres(options.pgUrl);
      }
      if (options.features.includes("redis-limits")) {
        progress.update(options.redisUrl === undefined ? "starting a throwaway Redis" : "using the given Redis");
        redis = options.redisUrl === undefined ? await startThrowawayRedis() : { url: options.redisUrl, stop: () => undefined };
        progress.update("measuring Redis's own round trip");
        redisRoundTrip = await measureRedisRoundTrip(redis.url, 2000, options.modes.map((mode) => ({ mode, pauseMs: pauseOfMode(mode) })));
      }
      const perModel = options.models.length > 1;
      // One Renio per storage, journal, guardrails and event-loops setting, for each feature (--features).
      const variants = options.features.flatMap((feature) =>
        withEventLoops(relayVariants(options.storages, options.journals, options.guardrails), options.eventLoops).map((plain) =>
          feature === "off" ? { ...plain, feature } : { ...plain, feature, id: `${plain.id}-${feature}`, label: `${plain.label}, ${FEATURE_LABELS[feature]}`, name: [plain.name, feature].filter((part) => part !== "").join("-") },
        ),
      );
      for (const variant of variants) {
        for (const [index, model] of options.models.entries()) {
          const name = [variant.name, ...(perModel ? [String(index)] : [])].filter((part) => part !== "").join("-");
          const relayDir = join(dir, name);
          mkdirSync(relayDir, { recursive: true });
          const configPath = join(relayDir, "renio.json");
          // One database per Renio on a throwaway server; on a given one, one total budget per Renio.
          const tag = [variant.journal, ...(variant.guardrails === "off" ? [] : [variant.guardrails]), ...(perModel ? [String(index)] : [])].join("_");
          const onPostgres = variant.storage === "postgres" ? { postgresUrl: await postgres!.databaseUrl(`renio_${tag}`), budgetId: `bench-total-${tag}` } : {};
          const config = benchRelayConfig({ mockUrl: mock.url, model, dir: relayDir, journal: variant.journal, budget: options.budget, budgetScope: options.budgetScope, secret, metricsToken, upstreamClient: options.upstreamClient, eventLoops: variant.eventLoops, guardrails: variant.guardrails, feature: variant.feature, redisUrl: redis?.url, ...onPostgres });
          writeFileSync(configPath, JSON.stringify(config, null, 2));
          const label = `${variant.label}${perModel ? ` ${model.name}` : ""}`;
          progress.update(`starting ${label}`);
          const relay = await startChildServer("relay", [...self, "serve", "--config", configPath]);
          children.push(relay);
          // The first model keeps the plain ids (the durable-write comparison reads them).
          const idOf = (id: string) => (index === 0 ? id : `${id}@${model.name}`);
          relays.push({
            id: idOf(variant.id),
            label,
            url: relay.url + CHAT_PATH,
            headers: directHeaders,
            probe: createProcessProbe(relay.pid, ticks),
            ...(variant.journal === "off" ? {} : { journalWrites: () => readJournalWrites(relay.url, metricsToken) }),
            ...(perModel || model.translated ? { model: model.name, translated: model.translated } : {}),
            ...(variant.guardrails === "off" ? {} : { guardrails: { action: variant.guardrails, ...(variant.unguarded === undefined ? {} : { unguarded: idOf(variant.unguarded) }) } }),
          });
          if (uncheckedKey({ feature: variant.feature, budgetScope: options.budgetScope })) {
            const headers = directHeaders.map(([name, value]): readonly [string, string] => (name === "authorization" ? [name, `Bearer ${uncheckedSecret(secret)}`] : [name, value]));
            relays.push({ id: `${idOf(variant.id)}${UNCHECKED_SUFFIX}`, label: `${label}, a key without limits`, url: relay.url + CHAT_PATH, headers, sharesProcessWith: idOf(variant.id) });
          }
        }
      }
    } else {
      relays.push({ id: "target", label: "target", url: options.target, headers: options.headers });
    }
    if (options.baseline === "passthrough") {
      progress.update("starting the passthrough");
      const passthrough = await startChildServer("passthrough", [...self, "passthrough", "--upstream", mock.url, "--port", "0"]);
      children.push(passthrough);
      relays.push({ id: "passthrough", label: "passthrough", url: passthrough.url + CHAT_PATH, headers: directHeaders, probe: createProcessProbe(passthrough.pid, ticks) });
    }
    const directUrl = mock.url + CHAT_PATH;
    const soak = options.soak === undefined
      ? undefined
      : await runSoak({ ...options.soak, concurrency: options.concurrency[0]!, warmup: options.warmup, model: options.model, directUrl, directHeaders, relay: relays[0]!, progress, signal: deadline.signal });
    const modes = soak !== undefined ? [] : await runMeasurements({ options, directUrl, directHeaders, relays, progress, signal: deadline.signal });
    const mockCalls = await mockCallsByWire(mock.url);
    progress.done();
    const report: BenchReport = {
      renioVersion: versionOf(self),
      startedAt: new Date(started).toISOString(),
      durationSeconds: (Date.now() - started) / 1000,
      method: { requests: options.requests, warmup: options.warmup, rounds: options.rounds, concurrency: options.concurrency, mock: BENCH_MOCK, model: options.model },
      machine: machineInfo(),
      runtime: `${runtime.name} ${runtime.version}`,
      ...(options.target === undefined
        ? { relay: relaySettings(options.journals, options.budget, options.models, options.storages.map((storage) => (storage === "postgres" ? postgres!.description : SQLITE_STORAGE)), options.guardrails, options.budgetScope) }
        : { target: { url: options.target, headerNames: options.headers.map(([name]) => name) } }),
      ...(options.baseline ? { baseline: options.baseline } : {}),
      ...(mockCalls !== undefined ? { mockCalls } : {}),
      diskFloor,
      durableWrite: durableWriteCosts(modes, diskFloor, options.storages.length > 1 ? options.storages : undefined, pauseOfMode),
      ...(options.guardrails.length > 1 ? { guardrailsCost: guardrailsCosts(modes) } : {}),
      ...(soak !== undefined ? { soak } : {}),
      ...(redisRoundTrip !== undefined ? { redisRoundTrip } : {}),
      modes,
    };
    const text = renderReport(report, options.format);
    await new Promise<void>((resolve) => process.stdout.write(`${text}\n`, () => resolve()));
    if (options.out !== undefined) writeFileSync(options.out, `${text}\n`);
    const failed = (soak?.samples.some((sample) => sample.errors > 0) ?? false) || modes.some((mode) => mode.points.some((point) => point.direct.errors > 0 || point.relays.some((relay) => relay.latency.errors > 0)));
    return failed ? 1 : 0;
  } finally {
    clearTimeout(deadlineTimer);
    progress.done();
    await Promise.all(children.reverse().map((child) => child.stop()));
    postgres?.stop();
    redis?.stop();
    rmSync(dir, { recursive: true, force: true });
  }
}

/** The calls the mock received by wire format (so a translated row shows it reached the Anthropic wire); undefined if it cannot tell. */
async function mockCallsByWire(mockUrl: string): Promise<BenchReport["mockCalls"]> {
  try {
    const stats = (await (await fetch(`${mockUrl}/_mock/stats`)).json()) as { receivedByWire?: BenchReport["mockCalls"] };
    return stats.receivedByWire;
  } catch {
    return undefined;
  }
}

/** `renio x.y.z`, as the program under test reports it. */
function versionOf(self: readonly string[]): string {
  try {
    const line = execFileSync(self[0]!, [...self.slice(1), "--version"], { encoding: "utf8", timeout: 10_000 }).trim();
    return /^renio (\S+)/.exec(line)?.[1] ?? line;
  } catch {
    return "unknown";
  }
}
