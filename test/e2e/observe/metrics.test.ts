import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import OpenAI from "openai";
import type { JournalEntry } from "../../../src/shared/journal-records.ts";
import { admissionLogDir } from "../../../src/journal/admission-log/log-segments.ts";
import { canFreeze, frozen } from "../../support/frozen-files.ts";
import { startPostgresCluster } from "../../support/postgres.ts";
import { eventually } from "../../support/sse-bytes.ts";
import { Scrape, scrape } from "../../support/prom-scrape.ts";
import { startMockServer, startRelay, TEST_KEY, type MockServer, type RelayUnderTest } from "../../support/relay-harness.ts";

const ADMIN_TOKEN = "admin-token-0123456789";
const METRICS_TOKEN = "metrics-token-0123456789";
const POOR_KEY = "sk-renio-poor-key-0001";
/** A model name that needs the escapes of the text format a name can need: quote and backslash (a line feed cannot be in a name: the input rules refuse it). */
const ODD_MODEL = 'mock-odd"name\\with back\\slash';

let mock: MockServer;
before(async () => {
  mock = await startMockServer();
});
after(async () => {
  await mock.stop();
});

/** Relay config: two keys, a budget too small for the poor project's first call, an oddly named model. */
function overrides(extra: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    server: { host: "127.0.0.1", port: 0, shutdownGraceMs: 2000, adminToken: ADMIN_TOKEN, metricsToken: METRICS_TOKEN },
    models: { "mock-gpt": { provider: "mock" }, [ODD_MODEL]: { provider: "mock", model: "mock-gpt" } },
    keys: [
      { id: "test", secret: TEST_KEY, project: "tests" },
      { id: "poor", secret: POOR_KEY, project: "poor" },
    ],
    budgets: [{ id: "poor-day", scope: { project: "poor" }, period: "day", limit: 0.000001 }],
    ...extra,
  };
}

const client = (url: string, apiKey: string): OpenAI => new OpenAI({ baseURL: `${url}/v1`, apiKey, maxRetries: 0 });

/** The status of a call made with the SDK (its error's status when it fails). */
async function statusOf(call: Promise<unknown>): Promise<number> {
  try {
    await call;
    return 200;
  } catch (error) {
    if (error instanceof OpenAI.APIError && error.status !== undefined) return error.status;
    throw error;
  }
}

/** Every journal entry, through the admin API (which brings the store up to date first). */
async function journal(url: string): Promise<JournalEntry[]> {
  const response = await fetch(`${url}/admin/journal?limit=1000`, { headers: { authorization: `Bearer ${ADMIN_TOKEN}` } });
  assert.equal(response.status, 200);
  return ((await response.json()) as { data: JournalEntry[] }).data;
}

/** Counts of entries by model, outcome and status, keyed as the metrics label them. */
function countBy<T>(items: readonly T[], keyOf: (item: T) => string, weight: (item: T) => number = () => 1): Map<string, number> {
  const counts = new Map<string, number>();
  for (const item of items) counts.set(keyOf(item), (counts.get(keyOf(item)) ?? 0) + weight(item));
  return counts;
}

describe("GET /metrics", () => {
  let relay: RelayUnderTest;
  before(async () => {
    relay = await startRelay(mock.url, overrides());
  });
  after(async () => {
    await relay.stop();
  });

  test("after calls with a 429 budget refusal, a 502 and a 401, the parsed counters equal the journal's", async () => {
    const ok = client(relay.url, TEST_KEY);
    const statuses: number[] = [];
    for (let i = 0; i < 3; i++) statuses.push(await statusOf(ok.chat.completions.create({ model: "mock-gpt", messages: [{ role: "user", content: "hi" }], max_tokens: 20 })));
    statuses.push(
      await statusOf(
        (async () => {
          const stream = await ok.chat.completions.create({ model: "mock-gpt", messages: [{ role: "user", content: "hi" }], max_tokens: 20, stream: true });
          for await (const _chunk of stream) void _chunk;
        })(),
      ),
    );
    statuses.push(await statusOf(ok.chat.completions.create({ model: ODD_MODEL, messages: [{ role: "user", content: "hi" }], max_tokens: 20 })));
    statuses.push(await statusOf(ok.chat.completions.create({ model: "mock-gpt", messages: [{ role: "user", content: "hi" }] }, { headers: { "x-mock-fault": "status=502" } })));
    statuses.push(await statusOf(client(relay.url, POOR_KEY).chat.completions.create({ model: "mock-gpt", messages: [{ role: "user", content: "hi" }], max_tokens: 20 })));
    statuses.push(await statusOf(client(relay.url, "sk-renio-wrong-key").chat.completions.create({ model: "mock-gpt", messages: [{ role: "user", content: "hi" }] })));
    statuses.push(await statusOf(ok.chat.completions.create({ model: "made-up-model-name", messages: [{ role: "user", content: "hi" }] })));
    assert.deepEqual(statuses, [200, 200, 200, 200, 200, 502, 429, 401, 404]);

    const entries = await journal(relay.url);
    assert.equal(entries.length, statuses.length);
    const page = await scrape(relay.url, METRICS_TOKEN);
    assert.equal(page.status, 200);
    assert.equal(page.contentType, "text/plain; version=0.0.4; charset=utf-8");
    const metrics = new Scrape(page.text);

    // Calls by model, outcome and status: as the journal counts them (a model is a label once routed).
    const journalCalls = countBy(entries, (e) => `${e.provider === null ? "" : e.model}|${e.outcome}|${e.status}`);
    const metricCalls = countBy(metrics.metrics("renio_calls_total"), (m) => `${m.labels?.model}|${m.labels?.outcome}|${m.labels?.status}`, (m) => Number(m.value));
    assert.deepEqual(metricCalls, journalCalls);
    assert.equal(metrics.sum("renio_calls_total", { project: "poor", outcome: "refused", status: "429" }), 1);
    assert.equal(metrics.sum("renio_calls_total", { outcome: "upstream_error", status: "502", provider: "mock" }), 1);
    assert.equal(metrics.sum("renio_refusals_total", { code: "budget_exceeded" }), 1);
    assert.equal(metrics.sum("renio_refusals_total", { code: "invalid_api_key" }), 1);
    assert.equal(metrics.sum("renio_refusals_total", { code: "model_not_found" }), 1);
    assert.ok(!page.text.includes("made-up-model-name"), "a model name a client made up is no label");
    assert.equal(metrics.families.get("renio_calls_total")?.type, "COUNTER");

    // Tokens and cost: the journal's sums.
    const sumOf = (pick: (e: JournalEntry) => number | null) => entries.reduce((total, e) => total + (pick(e) ?? 0), 0);
    assert.equal(metrics.sum("renio_tokens_total", { type: "output" }), sumOf((e) => e.outputTokens));
    assert.equal(metrics.sum("renio_tokens_total", { type: "input" }), sumOf((e) => e.inputTokens));
    assert.ok(sumOf((e) => e.outputTokens) > 0);
    assert.ok(Math.abs(metrics.sum("renio_cost_total") - sumOf((e) => e.cost)) < 1e-12);

    // Histograms: cumulative buckets ending in +Inf = _count, one observation per call.
    const counted = (name: string, labelled = true): number => {
      assert.equal(metrics.families.get(name)?.type, "HISTOGRAM", name);
      const series = metrics.histogram(name);
      assert.ok(series.length > 0, `${name} has series`);
      for (const { buckets, count, sum, labels } of series) {
        if (labelled) assert.ok(labels.route !== undefined && labels.model !== undefined, `${name} series are labelled`);
        for (let i = 1; i < buckets.length; i++) {
          assert.ok(buckets[i]![0] > buckets[i - 1]![0], `${name}: le ascending`);
          assert.ok(buckets[i]![1] >= buckets[i - 1]![1], `${name}: buckets are cumulative`);
        }
        assert.deepEqual(buckets[buckets.length - 1], [Infinity, count], `${name}: +Inf bucket = _count`);
        assert.ok(sum >= 0);
      }
      return series.reduce((total, s) => total + s.count, 0);
    };
    assert.equal(counted("renio_call_duration_seconds"), entries.length);
    assert.equal(counted("renio_upstream_duration_seconds"), entries.filter((e) => e.upstreamMs !== null).length);
    assert.equal(counted("renio_relay_overhead_seconds"), entries.filter((e) => e.upstreamMs !== null).length);
    assert.equal(counted("renio_call_ttfb_seconds"), entries.filter((e) => e.ttfbMs !== null).length);
    assert.ok(counted("renio_store_admission_write_seconds", false) >= 6, "every admission write observed");

    // The odd model name came through the escapes intact.
    assert.equal(metrics.sum("renio_calls_total", { model: ODD_MODEL, outcome: "ok" }), 1);
    assert.ok(page.text.includes('model="mock-odd\\"name\\\\with back\\\\slash"'), "quote and backslash escaped");

    // Budgets, in-flight, store.
    assert.equal(metrics.sum("renio_budget_limit", { budget: "poor-day", mode: "strict" }), 0.000001);
    assert.equal(metrics.sum("renio_budget_spent", { budget: "poor-day" }), 0);
    assert.equal(metrics.sum("renio_budget_remaining", { budget: "poor-day" }), 0.000001);
    assert.equal(metrics.sum("renio_in_flight_calls"), 0);
    assert.equal(metrics.sum("renio_store_up"), 1);
  });

  test("every metric the Grafana dashboard (deploy/grafana/renio.json) queries is on the page", async () => {
    const dashboard = readFileSync(new URL("../../../deploy/grafana/renio.json", import.meta.url), "utf8");
    const queried = new Set((JSON.parse(dashboard) as { panels: Array<{ targets?: Array<{ expr: string }> }> }).panels.flatMap((panel) => (panel.targets ?? []).flatMap((target) => target.expr.match(/renio_[a-z_]+/g) ?? [])));
    assert.ok(queried.size >= 15, "the dashboard queries the metrics");
    const metrics = new Scrape((await scrape(relay.url, METRICS_TOKEN)).text);
    for (const name of queried) {
      const family = name.replace(/_(bucket|sum|count)$/, "");
      assert.ok(metrics.families.has(name) || metrics.families.get(family)?.type === "HISTOGRAM", `${name} is exported`);
    }
  });

  test("without a token or with a wrong one: 401; the admin token also reads it", async () => {
    assert.equal((await scrape(relay.url)).status, 401);
    assert.equal((await scrape(relay.url, "not-the-metrics-token")).status, 401);
    assert.equal((await scrape(relay.url, ADMIN_TOKEN)).status, 200);
  });

  test("per-key labels are off by default", async () => {
    const metrics = new Scrape((await scrape(relay.url, METRICS_TOKEN)).text);
    assert.ok(metrics.metrics("renio_calls_total").every((m) => m.labels?.key === undefined));
  });
});

describe("GET /metrics with metrics.perKeyLabels", () => {
  test("labels calls by key id", async () => {
    const relay = await startRelay(mock.url, overrides({ metrics: { perKeyLabels: true } }));
    try {
      await client(relay.url, TEST_KEY).chat.completions.create({ model: "mock-gpt", messages: [{ role: "user", content: "hi" }], max_tokens: 20 });
      const metrics = new Scrape((await scrape(relay.url, METRICS_TOKEN)).text);
      assert.equal(metrics.sum("renio_calls_total", { key: "test", outcome: "ok" }), 1);
    } finally {
      await relay.stop();
    }
  });
});

describe("GET /metrics while the store is down", () => {
  test("sqlite: admission log made unwritable under the relay: 200 with renio_store_up 0 and the budgets from memory; 1 again after", { skip: !canFreeze && "needs root and chattr" }, async () => {
    const relay = await startRelay(mock.url, overrides());
    const logDir = admissionLogDir(join(relay.dir, "renio.db"));
    try {
      await client(relay.url, TEST_KEY).chat.completions.create({ model: "mock-gpt", messages: [{ role: "user", content: "hi" }], max_tokens: 20 });
      assert.equal(new Scrape((await scrape(relay.url, METRICS_TOKEN)).text).sum("renio_store_up"), 1);
      await frozen([logDir, ...readdirSync(logDir).map((name) => join(logDir, name))], async () => {
        const down = await scrape(relay.url, METRICS_TOKEN);
        assert.equal(down.status, 200);
        const metrics = new Scrape(down.text);
        assert.equal(metrics.sum("renio_store_up"), 0);
        assert.equal(metrics.sum("renio_budget_limit", { budget: "poor-day" }), 0.000001);
        assert.equal(metrics.sum("renio_calls_total", { outcome: "ok" }), 1);
      });
      assert.equal(new Scrape((await scrape(relay.url, METRICS_TOKEN)).text).sum("renio_store_up"), 1);
    } finally {
      await relay.stop();
    }
  });

  test("postgres: server stopped under the relay: the scrape answers 200 with renio_store_up 0, and 1 again after", async () => {
    const cluster = startPostgresCluster();
    const relay = await startRelay(mock.url, overrides({ storage: { type: "postgres", url: cluster.url, poolSize: 2 } }));
    try {
      await client(relay.url, TEST_KEY).chat.completions.create({ model: "mock-gpt", messages: [{ role: "user", content: "hi" }], max_tokens: 20 });
      assert.equal(new Scrape((await scrape(relay.url, METRICS_TOKEN)).text).sum("renio_store_up"), 1);
      cluster.pause();
      try {
        const down = await scrape(relay.url, METRICS_TOKEN);
        assert.equal(down.status, 200);
        const metrics = new Scrape(down.text);
        assert.equal(metrics.sum("renio_store_up"), 0);
        assert.equal(metrics.sum("renio_calls_total", { outcome: "ok" }), 1, "call counters still answer");
      } finally {
        cluster.resume();
      }
      // The pool's connections from before the pause fail once each (and are replaced): up again within a bounded wait.
      const upAgain = await eventually(async () => new Scrape((await scrape(relay.url, METRICS_TOKEN)).text).sum("renio_store_up") === 1, 15_000, 50);
      assert.ok(upAgain, "renio_store_up is 1 again after the server resumes");
    } finally {
      await relay.stop();
      cluster.destroy();
    }
  });
});

describe("GET /metrics with rate limits", () => {
  test("each limit's size and what fits now are gauges, per scope, id and kind", async () => {
    const relay = await startRelay(mock.url, overrides({ rateLimits: [{ scope: { key: "test" }, requestsPerMinute: 5, concurrent: 3 }, { scope: { project: "poor" }, tokensPerMinute: 100_000 }] }));
    try {
      for (let i = 0; i < 2; i++) await client(relay.url, TEST_KEY).chat.completions.create({ model: "mock-gpt", messages: [{ role: "user", content: "hi" }], max_tokens: 5 });
      const metrics = new Scrape((await scrape(relay.url, METRICS_TOKEN)).text);
      assert.equal(metrics.sum("renio_rate_limit", { scope: "key", id: "test", kind: "requests" }), 5);
      assert.equal(metrics.sum("renio_rate_limit_remaining", { scope: "key", id: "test", kind: "requests" }), 3, "two of five requests taken this minute");
      assert.equal(metrics.sum("renio_rate_limit", { scope: "key", id: "test", kind: "concurrent" }), 3);
      assert.equal(metrics.sum("renio_rate_limit_remaining", { scope: "key", id: "test", kind: "concurrent" }), 3, "no call in flight");
      assert.equal(metrics.sum("renio_rate_limit_remaining", { scope: "project", id: "poor", kind: "tokens" }), 100_000, "the project made no call");
    } finally {
      await relay.stop();
    }
  });
});
