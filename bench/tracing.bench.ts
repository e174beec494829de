/**
 * Micro-benchmark of tracing per call on the request path (begin, route, one upstream attempt,
 * end: span creation + attributes + end + queueing), off and on, and of the export step that
 * runs off the request path (OTLP JSON encoding of one batch of 512 calls).
 * `node_modules/.bin/bun bench/tracing.bench.ts`
 */
import { Bench } from "tinybench";
import type { Provider } from "../src/providers/provider.ts";
import type { CallInput } from "../src/shared/call-context.ts";
import { createTracer, passThroughTracer, type EndFacts, type Tracer } from "../src/observe/call-trace.ts";
import { encodeTraces } from "../src/observe/otlp-json.ts";
import type { TracedCall } from "../src/observe/trace-span.ts";
import { ROUTES } from "../src/shared/route-spec.ts";

const route = ROUTES.get("/v1/chat/completions")!;
const withParent = new Request("http://relay/v1/chat/completions", { method: "POST", headers: { traceparent: "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01" } });
const without = new Request("http://relay/v1/chat/completions", { method: "POST" });
const input = (request: Request): CallInput => ({ route, request, clientAddress: "127.0.0.1", id: "entry-1", requestId: "entry-1", startedAt: performance.now(), receivedAt: Date.now() });
const provider = { id: "openai", endpoint: { hostname: "api.openai.com", port: 443 } } as Provider;
const facts: EndFacts = {
  start: { id: "entry-1", receivedAt: Date.now(), requestId: null, keyId: "app-1", project: "support", route: route.path, model: "gpt-4o", provider: "openai", upstreamModel: "gpt-4o-2024-08-06", stream: false, requestBytes: 300, clientAddress: "127.0.0.1", requestBody: null },
  outcome: "ok",
  status: 200,
  errorCode: null,
  usage: { inputTokens: 52, cachedInputTokens: 0, outputTokens: 16 },
  cost: 0.00029,
  currency: "USD",
  upstreamMs: 310,
};

/** The queue the exporter keeps, emptied at a batch's size as the exporter would. */
const queue: TracedCall[] = [];
const tracer = createTracer({ sampleRatio: 1, record: (call) => (queue.push(call), queue.length >= 512 && (queue.length = 0)) });
const oneCall = (using: Tracer, request: Request) => {
  const trace = using.begin(input(request));
  trace.routed({ provider, providerName: "openai", maxTokens: 256 });
  trace.attempt();
  trace.end(facts);
};

const batch: TracedCall[] = [];
const filler = createTracer({ sampleRatio: 1, record: (call) => batch.push(call) });
for (let i = 0; i < 512; i++) oneCall(filler, withParent);

const bench = new Bench({ name: "tracing per call (begin + route + attempt + end) and per export batch", time: 300, warmupTime: 50 });
bench
  .add("off, no traceparent", () => oneCall(passThroughTracer, without))
  .add("off, client traceparent passed through", () => oneCall(passThroughTracer, withParent))
  .add("on, new trace: SERVER + CLIENT span queued", () => oneCall(tracer, without))
  .add("on, client traceparent: SERVER + CLIENT span queued", () => oneCall(tracer, withParent))
  .add("export: OTLP JSON of 512 calls (1024 spans), off the request path", () => {
    encodeTraces(batch, "renio", "0.1.0");
  });

await bench.run();
console.log(bench.name);
console.table(bench.table());
