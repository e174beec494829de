import { mkdirSync, writeFileSync } from "node:fs";
import os from "node:os";
import { join } from "node:path";
import type { Runtime } from "../runtime/runtime.ts";
import type { BenchOptions, CapacityOptions } from "./bench-args.ts";
import { startChildServer, type ChildServer } from "./bench-child.ts";
import { machineInfo } from "./bench-machine.ts";
import type { Progress } from "./bench-progress.ts";
import { benchRelayConfig, benchSecret, relayVariants, withEventLoops } from "./bench-relay-config.ts";
import { renderCapacityReport, type CapacityReport } from "./capacity-report.ts";
import { runCapacity, type CapacitySubject } from "./capacity-run.ts";
import { createProcessProbe, clockTicksPerSecond } from "./process-usage.ts";
import { GO_PROXY_SETUP, goProxyBinary, NGINX_SETUP, startGoProxy, startNginx } from "./reference-proxies.ts";

const CHAT_PATH = "/v1/chat/completions";

/** The mock's first-byte latency in capacity mode (ms). */
const CAPACITY_LATENCY_MS = 2;

/** What a capacity run needs from `renio bench`. */
export interface CapacityRunContext {
  readonly options: BenchOptions & { readonly capacity: CapacityOptions };
  readonly runtime: Runtime;
  readonly self: readonly string[];
  /** The run's temporary directory. */
  readonly dir: string;
  readonly progress: Progress;
  readonly signal: AbortSignal;
  /** Children started here, stopped by the caller. */
  readonly children: ChildServer[];
  readonly version: string;
}

/**
 * `renio bench --mode capacity`: the mock with long streams, one Renio per --journal setting
 * (strict budget unless off), the passthrough (--baseline passthrough), the Go proxy and nginx
 * (--compare), each measured at every --concurrency; returns the report's text and whether any
 * call failed.
 */
export async function runCapacityBench(context: CapacityRunContext): Promise<{ text: string; failed: boolean }> {
  const { options, self, dir, progress, children } = context;
  const { capacity } = options;
  const started = Date.now();
  const loadAverage = os.loadavg();
  const maxStreams = Math.max(...options.concurrency);
  progress.update("starting the mock");
  const mock = await startChildServer("mock", [
    ...self, "mock", "--answer", "fill", "--host", "127.0.0.1", "--port", String(options.mockPort),
    "--latency-ms", String(CAPACITY_LATENCY_MS), "--chunk-interval-ms", String(capacity.chunkIntervalMs), "--chunks", String(capacity.chunks),
  ]);
  children.push(mock);
  const ticks = clockTicksPerSecond();
  const subjects: CapacitySubject[] = [];
  const setups: CapacityReport["subjects"][number][] = [];
  const add = (child: ChildServer, id: string, label: string, setup: string, headers: ReadonlyArray<readonly [string, string]> = []) => {
    children.push(child);
    const probe = createProcessProbe(child.pid, ticks);
    subjects.push({ id, label, url: child.url + CHAT_PATH, headers, probe, rssStartBytes: probe.rss() });
    setups.push({ id, label, setup });
  };
  const secret = benchSecret();
  for (const variant of withEventLoops(relayVariants(["sqlite"], options.journals), options.eventLoops)) {
    const relayDir = join(dir, variant.name || "renio");
    mkdirSync(relayDir, { recursive: true });
    const config = benchRelayConfig({ mockUrl: mock.url, model: { name: options.model, translated: false }, dir: relayDir, journal: variant.journal, budget: options.budget, secret, upstreamClient: options.upstreamClient, eventLoops: variant.eventLoops });
    const configPath = join(relayDir, "renio.json");
    writeFileSync(configPath, JSON.stringify(config, null, 2));
    progress.update(`starting ${variant.label}`);
    const relay = await startChildServer("relay", [...self, "serve", "--config", configPath]);
    const budget = variant.journal === "off" ? "no journal, no budget" : `journal ${variant.journal}, ${options.budget} budget`;
    add(relay, variant.id, variant.label, `${budget}, SQLite, server.upstreamClient ${options.upstreamClient ?? "auto"}${variant.eventLoops === undefined ? "" : `, server.eventLoops ${variant.eventLoops}`}`, [["authorization", `Bearer ${secret}`]]);
  }
  if (options.baseline === "passthrough") {
    progress.update("starting the passthrough");
    add(await startChildServer("passthrough", [...self, "passthrough", "--upstream", mock.url, "--port", "0"]), "passthrough", "Bun passthrough", "a Bun server handing each request to Bun's fetch (BUN_CONFIG_MAX_HTTP_REQUESTS=65535), nothing else");
  }
  if (capacity.compare.includes("go")) {
    progress.update("building and starting the Go proxy");
    add(await startGoProxy(goProxyBinary(capacity.goProxy, dir), mock.url), "go", "Go proxy", GO_PROXY_SETUP);
  }
  if (capacity.compare.includes("nginx")) {
    progress.update("starting nginx");
    add(await startNginx(capacity.nginx, join(dir, "nginx"), mock.url, maxStreams), "nginx", "nginx", NGINX_SETUP);
  }
  const points = await runCapacity({
    concurrency: options.concurrency,
    requests: options.requests,
    warmupPerWorker: 1,
    streamMs: CAPACITY_LATENCY_MS + capacity.chunks * capacity.chunkIntervalMs,
    model: options.model,
    directUrl: mock.url + CHAT_PATH,
    directHeaders: [],
    subjects,
    progress,
    signal: context.signal,
  });
  progress.done();
  const report: CapacityReport = {
    renioVersion: context.version,
    startedAt: new Date(started).toISOString(),
    durationSeconds: (Date.now() - started) / 1000,
    method: { concurrency: options.concurrency, requests: options.requests, warmupPerWorker: 1, mock: { latencyMs: CAPACITY_LATENCY_MS, chunkIntervalMs: capacity.chunkIntervalMs, chunks: capacity.chunks }, model: options.model },
    machine: machineInfo(),
    loadAverage,
    runtime: `${context.runtime.name} ${context.runtime.version}`,
    subjects: setups,
    points,
  };
  const failed = points.some((point) => [point.direct, ...point.subjects].some((measure) => measure.errors > 0));
  return { text: renderCapacityReport(report, options.format), failed };
}
