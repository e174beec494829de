import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import OpenAI from "openai";
import { eventually } from "../../support/sse-bytes.ts";
import { Scrape, scrape } from "../../support/prom-scrape.ts";
import type { JournalEntry } from "../../../src/shared/journal-records.ts";
import type { Store } from "../../../src/storage/store.ts";
import { freePort } from "../../support/free-port.ts";
import { startOtlpCollector, type OtlpCollector, type ReceivedSpan } from "../../support/otlp-collector.ts";
import { finishedEntries, openStore } from "../../support/relay-calls.ts";
import { startRelay, TEST_KEY, type RelayUnderTest } from "../../support/relay-harness.ts";
import { startAnsweringUpstream, type ScriptedUpstream } from "../../support/scripted-upstream.ts";

const UPSTREAM_SECRET = "sk-upstream-secret-0042";
const COLLECTOR_TOKEN = "collector-token-0077";
const PROMPT = "prompt-text-xyzzy";
const ANSWER = "answer-text-plugh";
const CLIENT_TRACE = "4bf92f3577b34da6a3ce929d0e0e4736";
const CLIENT_SPAN = "00f067aa0ba902b7";
const USAGE = { prompt_tokens: 13, completion_tokens: 7, total_tokens: 20 };

/** A chat-completions upstream answering ANSWER as JSON or as an SSE stream with a final usage chunk. */
const SNAPSHOT = "-2025-01-01";

function startChatUpstream(): Promise<ScriptedUpstream> {
  return startAnsweringUpstream(({ body }) => {
    // Providers answer with the dated snapshot that served the call (`gen_ai.response.model`).
    const base = { id: "chatcmpl-t", created: 0, model: `${String(body["model"])}${SNAPSHOT}` };
    if (body["stream"] !== true) {
      return { json: { ...base, object: "chat.completion", choices: [{ index: 0, message: { role: "assistant", content: ANSWER }, finish_reason: "stop" }], usage: USAGE } };
    }
    const chunk = (extra: Record<string, unknown>) => `data: ${JSON.stringify({ ...base, object: "chat.completion.chunk", ...extra })}`;
    return {
      sse: [
        chunk({ choices: [{ index: 0, delta: { role: "assistant", content: ANSWER }, finish_reason: null }] }),
        chunk({ choices: [{ index: 0, delta: {}, finish_reason: "stop" }] }),
        chunk({ choices: [], usage: USAGE }),
        "data: [DONE]",
      ],
    };
  });
}

/** Model `gpt-test` served by `upstream`; `gpt-dead` by a provider nothing listens for (`deadPort`). */
function relayConfig(upstream: ScriptedUpstream, tracing: Record<string, unknown>, deadPort = 9): Record<string, unknown> {
  return {
    providers: {
      openai: { type: "openai", baseUrl: `${upstream.url}/v1`, apiKey: UPSTREAM_SECRET, firstByteTimeoutMs: 5000 },
      dead: { type: "openai", baseUrl: `http://127.0.0.1:${deadPort}/v1`, connectTimeoutMs: 2000 },
    },
    models: {
      "gpt-test": { provider: "openai", model: "gpt-upstream" },
      "gpt-dead": { provider: "dead" },
      // Tries the dead provider first, then the live one.
      "gpt-retry": { targets: [{ provider: "dead", model: "gpt-dead-upstream", priority: 1 }, { provider: "openai", model: "gpt-upstream" }] },
    },
    prices: { "gpt-test": { input: 1, output: 2 } },
    tracing,
  };
}

function clientOf(relay: RelayUnderTest): OpenAI {
  return new OpenAI({ apiKey: TEST_KEY, baseURL: `${relay.url}/v1`, maxRetries: 0 });
}

/** One chat call with the given extra headers; returns the journal id and the headers the upstream received. */
async function chat(relay: RelayUnderTest, upstream: ScriptedUpstream, headers: Record<string, string> = {}): Promise<{ id: string; upstreamHeaders: Headers }> {
  const before = upstream.headers.length;
  const { data, response } = await clientOf(relay)
    .chat.completions.create({ model: "gpt-test", messages: [{ role: "user", content: PROMPT }], max_tokens: 50 }, { headers })
    .withResponse();
  assert.equal(data.choices[0]!.message.content, ANSWER);
  assert.equal(upstream.headers.length, before + 1);
  return { id: response.headers.get("x-request-id")!, upstreamHeaders: upstream.headers[before]! };
}

/** The W3C fields of a traceparent header. */
function traceparentOf(headers: Headers): { traceId: string; parentId: string; flags: string } {
  const value = headers.get("traceparent");
  assert.ok(value !== null, "the upstream received a traceparent");
  const match = /^00-([0-9a-f]{32})-([0-9a-f]{16})-([0-9a-f]{2})$/.exec(value);
  assert.ok(match !== null, `valid traceparent: ${value}`);
  return { traceId: match[1]!, parentId: match[2]!, flags: match[3]! };
}

/** Waits for the SERVER span of entry `id` and its CLIENT children. */
async function spansOf(collector: OtlpCollector, id: string): Promise<{ server: ReceivedSpan; clients: ReceivedSpan[] }> {
  for (;;) {
    const server = collector.spans.find((span) => span.kind === 2 && span.attributes["renio.entry_id"] === id);
    const clients = server === undefined ? [] : collector.spans.filter((span) => span.kind === 3 && span.parentSpanId === server.spanId);
    if (server !== undefined && clients.length > 0) return { server, clients };
    await collector.spansArrived(collector.spans.length + 1);
  }
}

function assertTokensMatch(span: ReceivedSpan, entry: JournalEntry): void {
  assert.equal(span.attributes["gen_ai.usage.input_tokens"], entry.inputTokens! + entry.cachedInputTokens!);
  assert.equal(span.attributes["gen_ai.usage.output_tokens"], entry.outputTokens);
}

describe("tracing on: W3C context in and out, GenAI spans to the collector", () => {
  let upstream: ScriptedUpstream;
  let collector: OtlpCollector;
  let relay: RelayUnderTest;
  let store: Store;
  before(async () => {
    upstream = await startChatUpstream();
    collector = await startOtlpCollector();
    const tracing = { enabled: true, otlpEndpoint: collector.url, exportIntervalMs: 20, headers: { authorization: `Bearer ${COLLECTOR_TOKEN}` } };
    relay = await startRelay(upstream.url, relayConfig(upstream, tracing, await freePort()));
    store = await openStore(relay.config.storage);
  });
  after(async () => {
    await store.close();
    await relay.stop();
    await collector.stop();
    await upstream.stop();
  });

  test("a client traceparent: the upstream sees the same trace with Renio's span as parent; SERVER and CLIENT spans carry the journal's figures", async () => {
    const { id, upstreamHeaders } = await chat(relay, upstream, { traceparent: `00-${CLIENT_TRACE}-${CLIENT_SPAN}-01`, tracestate: "vendor=abc" });
    const sent = traceparentOf(upstreamHeaders);
    assert.equal(sent.traceId, CLIENT_TRACE);
    assert.notEqual(sent.parentId, CLIENT_SPAN);
    assert.equal(sent.flags, "01");
    assert.equal(upstreamHeaders.get("tracestate"), "vendor=abc");

    const { server, clients } = await spansOf(collector, id);
    const entry = (await finishedEntries(store, [id])).get(id)!;
    assert.equal(server.traceId, CLIENT_TRACE);
    assert.equal(server.parentSpanId, CLIENT_SPAN);
    assert.equal(server.traceState, "vendor=abc");
    assert.equal(server.serviceName, "renio");
    assert.equal(server.name, "POST /v1/chat/completions");
    assert.equal(server.status.code, 0);
    assert.equal(clients.length, 1);
    const [client] = clients as [ReceivedSpan];
    assert.equal(client.spanId, sent.parentId, "the upstream's parent is Renio's CLIENT span");
    assert.equal(client.traceId, CLIENT_TRACE);
    assert.equal(client.name, "chat gpt-upstream");

    assert.deepEqual(
      {
        operation: server.attributes["gen_ai.operation.name"],
        model: server.attributes["gen_ai.request.model"],
        responseModel: server.attributes["gen_ai.response.model"],
        status: server.attributes["http.response.status_code"],
        key: server.attributes["renio.key_id"],
        project: server.attributes["renio.project"],
        outcome: server.attributes["renio.outcome"],
        cost: server.attributes["renio.cost_usd"],
      },
      { operation: "chat", model: "gpt-test", responseModel: `gpt-upstream${SNAPSHOT}`, status: 200, key: entry.keyId, project: entry.project, outcome: entry.outcome, cost: entry.cost },
    );
    assertTokensMatch(server, entry);
    assert.equal(entry.inputTokens, USAGE.prompt_tokens);
    const upstreamPort = new URL(upstream.url).port;
    assert.deepEqual(
      {
        operation: client.attributes["gen_ai.operation.name"],
        provider: client.attributes["gen_ai.provider.name"],
        system: client.attributes["gen_ai.system"],
        model: client.attributes["gen_ai.request.model"],
        responseModel: client.attributes["gen_ai.response.model"],
        maxTokens: client.attributes["gen_ai.request.max_tokens"],
        address: client.attributes["server.address"],
        port: client.attributes["server.port"],
        status: client.attributes["http.response.status_code"],
      },
      { operation: "chat", provider: "openai", system: "openai", model: "gpt-upstream", responseModel: `gpt-upstream${SNAPSHOT}`, maxTokens: 50, address: "127.0.0.1", port: Number(upstreamPort), status: 200 },
    );
    assertTokensMatch(client, entry);
    assert.ok(BigInt(client.startTimeUnixNano) >= BigInt(server.startTimeUnixNano) && BigInt(client.endTimeUnixNano) <= BigInt(server.endTimeUnixNano), "the CLIENT span lies within the SERVER span");
    assert.equal(collector.requests[0]!.get("authorization"), `Bearer ${COLLECTOR_TOKEN}`, "the configured collector headers are sent");
  });

  test("no traceparent: a new trace, with Renio's span as the upstream's parent", async () => {
    const { id, upstreamHeaders } = await chat(relay, upstream);
    const sent = traceparentOf(upstreamHeaders);
    const { server, clients } = await spansOf(collector, id);
    assert.equal(server.traceId, sent.traceId);
    assert.notEqual(sent.traceId, CLIENT_TRACE);
    assert.equal(server.parentSpanId ?? "", "");
    assert.equal(clients[0]!.spanId, sent.parentId);
    assert.equal(upstreamHeaders.get("tracestate"), null);
  });

  for (const invalid of [
    `00-${"0".repeat(32)}-${CLIENT_SPAN}-01`,
    `00-${CLIENT_TRACE}-${"0".repeat(16)}-01`,
    `ff-${CLIENT_TRACE}-${CLIENT_SPAN}-01`,
    `00-${CLIENT_TRACE.toUpperCase()}-${CLIENT_SPAN}-01`,
    `00-${CLIENT_TRACE}-${CLIENT_SPAN}-01-extra`,
    `00-${CLIENT_TRACE}-${CLIENT_SPAN}`,
    "garbage",
  ]) {
    test(`an invalid traceparent (${invalid}) is ignored: the call succeeds in a new trace`, async () => {
      const { id, upstreamHeaders } = await chat(relay, upstream, { traceparent: invalid, tracestate: "vendor=abc" });
      const sent = traceparentOf(upstreamHeaders);
      assert.notEqual(sent.traceId, CLIENT_TRACE);
      assert.equal(upstreamHeaders.get("tracestate"), null, "tracestate without a valid traceparent is dropped");
      const { server } = await spansOf(collector, id);
      assert.equal(server.traceId, sent.traceId);
      assert.equal(server.parentSpanId ?? "", "");
    });
  }

  test("a streamed call's span ends at the stream's end, with its usage", async () => {
    const stream = await clientOf(relay)
      .chat.completions.create({ model: "gpt-test", messages: [{ role: "user", content: PROMPT }], stream: true, stream_options: { include_usage: true } }, {
        headers: { traceparent: `00-${CLIENT_TRACE}-${CLIENT_SPAN}-01` },
      })
      .withResponse();
    const id = stream.response.headers.get("x-request-id")!;
    let text = "";
    for await (const chunk of stream.data) {
      text += chunk.choices[0]?.delta.content ?? "";
    }
    assert.equal(text, ANSWER);
    const { server, clients } = await spansOf(collector, id);
    const entry = (await finishedEntries(store, [id])).get(id)!;
    assert.equal(entry.outputTokens, USAGE.completion_tokens);
    assertTokensMatch(server, entry);
    assertTokensMatch(clients[0]!, entry);
    // The usage came in the stream's last chunk: the span ended with it, not when the headers arrived.
    assert.equal(server.attributes["renio.outcome"], "ok");
    assert.ok(BigInt(clients[0]!.endTimeUnixNano) <= BigInt(server.endTimeUnixNano));
  });

  test("a refused call (bad key) still gets its SERVER span, with the error", async () => {
    const client = new OpenAI({ apiKey: "sk-wrong-key-123456", baseURL: `${relay.url}/v1`, maxRetries: 0 });
    const refused = await client.chat.completions.create({ model: "gpt-test", messages: [{ role: "user", content: PROMPT }] }).withResponse().catch((error: unknown) => error);
    assert.ok(refused instanceof OpenAI.APIError && refused.status === 401);
    const id = refused.headers?.get("x-request-id");
    assert.ok(id);
    for (;;) {
      const server = collector.spans.find((span) => span.attributes["renio.entry_id"] === id);
      if (server !== undefined) {
        assert.equal(server.status.code, 2);
        assert.equal(server.attributes["error.type"], "invalid_api_key");
        assert.equal(server.attributes["http.response.status_code"], 401);
        assert.equal(server.attributes["renio.outcome"], "refused");
        break;
      }
      await collector.spansArrived(collector.spans.length + 1);
    }
  });

  test("an unreachable provider: the CLIENT span records the failed attempt, the SERVER span the 502", async () => {
    const failed = await clientOf(relay)
      .chat.completions.create({ model: "gpt-dead", messages: [{ role: "user", content: PROMPT }] }, { headers: { traceparent: `00-${CLIENT_TRACE}-${CLIENT_SPAN}-01` } })
      .withResponse()
      .catch((error: unknown) => error);
    assert.ok(failed instanceof OpenAI.APIError && failed.status === 502, String(failed));
    const id = failed.headers?.get("x-request-id");
    assert.ok(id);
    const { server, clients } = await spansOf(collector, id);
    assert.equal(server.status.code, 2);
    assert.equal(server.attributes["error.type"], "upstream_unreachable");
    assert.equal(server.attributes["http.response.status_code"], 502);
    assert.equal(clients.length, 1);
    assert.equal(clients[0]!.status.code, 2);
    assert.equal(clients[0]!.attributes["error.type"], "upstream_unreachable");
    assert.equal(clients[0]!.attributes["gen_ai.usage.input_tokens"], undefined, "no usage for a call never answered");
  });

  test("a retry on another provider: one CLIENT span per attempt, each naming where it went", async () => {
    const { response } = await clientOf(relay).chat.completions.create({ model: "gpt-retry", messages: [{ role: "user", content: PROMPT }], max_tokens: 50 }).withResponse();
    const { server, clients } = await spansOf(collector, response.headers.get("x-request-id")!);
    assert.equal(server.attributes["renio.provider"], "openai", "the SERVER span names the provider that served");
    assert.deepEqual(clients.map((span) => span.attributes["gen_ai.request.model"]), ["gpt-dead-upstream", "gpt-upstream"]);
    assert.notEqual(clients[0]!.attributes["server.port"], clients[1]!.attributes["server.port"]);
    assert.equal(clients[1]!.attributes["http.response.status_code"], 200);
  });

  test("no exported span holds a secret or a body", () => {
    assert.ok(collector.spans.length >= 10);
    const exported = JSON.stringify(collector.spans);
    for (const secret of [TEST_KEY, "sk-wrong-key-123456", UPSTREAM_SECRET, COLLECTOR_TOKEN, PROMPT, ANSWER]) {
      assert.ok(!exported.includes(secret), `no span contains ${secret}`);
    }
  });
});

describe("tracing off", () => {
  test("a valid traceparent and tracestate pass through unchanged; nothing is exported", async () => {
    const upstream = await startChatUpstream();
    const collector = await startOtlpCollector();
    const relay = await startRelay(upstream.url, relayConfig(upstream, { enabled: false, otlpEndpoint: collector.url }));
    try {
      const traceparent = `00-${CLIENT_TRACE}-${CLIENT_SPAN}-01`;
      const { upstreamHeaders } = await chat(relay, upstream, { traceparent, tracestate: "vendor=abc,other=1" });
      assert.equal(upstreamHeaders.get("traceparent"), traceparent);
      assert.equal(upstreamHeaders.get("tracestate"), "vendor=abc,other=1");
      const { upstreamHeaders: plain } = await chat(relay, upstream);
      assert.equal(plain.get("traceparent"), null, "no traceparent is invented when tracing is off");
      const { upstreamHeaders: invalid } = await chat(relay, upstream, { traceparent: "00-zz" });
      assert.equal(invalid.get("traceparent"), null, "an invalid traceparent is not forwarded");
      assert.equal(relay.service.traceStats(), undefined);
    } finally {
      await relay.stop();
    }
    // Shut down (nothing left to flush): the collector never heard from the relay.
    assert.equal(collector.requests.length, 0);
    await collector.stop();
    await upstream.stop();
  });
});

describe("a collector down or hanging never fails the call", () => {
  test("collector down: calls succeed, their spans are dropped and counted", async () => {
    const upstream = await startChatUpstream();
    const metricsToken = "tracing-metrics-token-0123456789";
    const relay = await startRelay(upstream.url, {
      ...relayConfig(upstream, { enabled: true, otlpEndpoint: `http://127.0.0.1:${await freePort()}/v1/traces`, exportIntervalMs: 20, exportTimeoutMs: 2000 }),
      server: { host: "127.0.0.1", port: 0, shutdownGraceMs: 2000, metricsToken },
    });
    let metrics: Scrape | undefined;
    try {
      for (let i = 0; i < 3; i++) await chat(relay, upstream);
      // The counts are on /metrics too, as the exporter has them at the scrape.
      const counted = await eventually(async () => {
        metrics = new Scrape((await scrape(relay.url, metricsToken)).text);
        return metrics.sum("renio_trace_spans_dropped_total") === 6;
      });
      assert.ok(counted, "renio_trace_spans_dropped_total reaches 6");
      assert.equal(metrics!.sum("renio_trace_spans_exported_total"), 0);
    } finally {
      await relay.stop();
      await upstream.stop();
    }
    assert.deepEqual(relay.service.traceStats(), { exported: 0, dropped: 6, queued: 0 });
  });

  test("collector hanging: calls complete while the export is held, and its spans are dropped once the export times out", async () => {
    const upstream = await startChatUpstream();
    const collector = await startOtlpCollector("hang");
    const relay = await startRelay(
      upstream.url,
      relayConfig(upstream, { enabled: true, otlpEndpoint: collector.url, exportIntervalMs: 20, exportTimeoutMs: 300, maxQueue: 4 }),
    );
    try {
      await chat(relay, upstream);
      await collector.requestsArrived(1);
      // The collector holds that export unanswered; further calls complete regardless, and the
      // queue (4 spans) takes two of them: the rest are dropped at once.
      for (let i = 0; i < 5; i++) await chat(relay, upstream);
    } finally {
      await relay.stop();
      await collector.stop();
      await upstream.stop();
    }
    const stats = relay.service.traceStats()!;
    assert.equal(stats.exported, 0);
    assert.equal(stats.dropped, 12, "every span of the 6 calls was dropped, none lost uncounted");
  });
});
