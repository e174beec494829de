import assert from "node:assert/strict";
import { test } from "node:test";
import { createSpanExporter, type SpanExporterOptions } from "../../../src/observe/span-exporter.ts";
import { SPAN_KIND, type TracedCall } from "../../../src/observe/trace-span.ts";
import { startOtlpCollector } from "../../support/otlp-collector.ts";

/** A call of one SERVER span and one CLIENT child, numbered `n`. */
function call(n: number): TracedCall {
  const traceId = n.toString(16).padStart(32, "0");
  const span = (spanId: string, kind: 2 | 3, parentSpanId?: string) => ({ spanId, parentSpanId, name: `span ${n}`, kind, startMs: 1_700_000_000_000.5, endMs: 1_700_000_000_010.25, attributes: { n, ratio: 0.5, tag: "x" }, error: false });
  const server = span(`a${n.toString(16).padStart(15, "0")}`, SPAN_KIND.server);
  return { traceId, traceState: undefined, server, attempts: [span(`b${n.toString(16).padStart(15, "0")}`, SPAN_KIND.client, server.spanId)] };
}

function options(endpoint: string, extra: Partial<SpanExporterOptions>): SpanExporterOptions {
  // A long interval: nothing is sent on a timer during the test, only by batch size or at shutdown.
  return { endpoint, headers: {}, serviceName: "renio-test", serviceVersion: "0.0.0", maxQueue: 1000, maxBatch: 1000, intervalMs: 600_000, timeoutMs: 2000, ...extra };
}

test("full batches go out on their own, at most maxBatch spans each; the rest is flushed at shutdown", async () => {
  const collector = await startOtlpCollector();
  const exporter = createSpanExporter(options(collector.url, { maxBatch: 4 }));
  for (let n = 1; n <= 5; n++) exporter.add(call(n));
  await collector.spansArrived(8);
  assert.ok(exporter.stats().queued >= 2, "the last call waits for the next batch");
  await exporter.shutdown();
  assert.deepEqual(exporter.stats(), { exported: 10, dropped: 0, queued: 0 });
  assert.ok(collector.requests.length >= 3);
  assert.deepEqual(new Set(collector.spans.map((span) => span.traceId)).size, 5);
  const child = collector.spans.find((span) => span.kind === 3 && span.traceId === call(2).traceId)!;
  assert.equal(child.parentSpanId, call(2).server.spanId);
  assert.equal(child.startTimeUnixNano, "1700000000000500000");
  assert.equal(child.endTimeUnixNano, "1700000000010250000");
  assert.deepEqual(child.attributes, { n: 2, ratio: 0.5, tag: "x" });
  assert.equal(child.serviceName, "renio-test");
  await collector.stop();
});

test("a full queue drops new spans and counts them; shutdown sends what it holds", async () => {
  const collector = await startOtlpCollector();
  const exporter = createSpanExporter(options(collector.url, { maxQueue: 6 }));
  for (let n = 1; n <= 5; n++) exporter.add(call(n));
  assert.deepEqual(exporter.stats(), { exported: 0, dropped: 4, queued: 6 });
  await exporter.shutdown();
  assert.deepEqual(exporter.stats(), { exported: 6, dropped: 4, queued: 0 });
  assert.equal(collector.spans.length, 6);
  await collector.stop();
});

test("a collector answering an error loses that batch, counted as dropped; the message names the collector without its credentials", async () => {
  const collector = await startOtlpCollector();
  const errors: string[] = [];
  const endpoint = new URL(collector.url.replace("/v1/traces", "/wrong?token=query-secret"));
  endpoint.username = "user";
  endpoint.password = "url-secret";
  const exporter = createSpanExporter(options(endpoint.href, { onError: (message) => errors.push(message) }));
  exporter.add(call(1));
  await exporter.shutdown();
  assert.deepEqual(exporter.stats(), { exported: 0, dropped: 2, queued: 0 });
  assert.equal(errors.length, 1);
  assert.match(errors[0]!, /answered 404.*dropped/);
  assert.ok(!errors[0]!.includes("url-secret") && !errors[0]!.includes("query-secret"), errors[0]);
  await collector.stop();
});
