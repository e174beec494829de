import { currentRuntime } from "../../src/runtime/current-runtime.ts";
import type { Server } from "../../src/runtime/runtime.ts";

/** An OTLP attribute value as the JSON encoding carries it. */
export interface OtlpValue {
  stringValue?: string;
  intValue?: string;
  doubleValue?: number;
  boolValue?: boolean;
}

/** One span as received, attributes decoded into a plain record. */
export interface ReceivedSpan {
  traceId: string;
  spanId: string;
  parentSpanId?: string;
  traceState?: string;
  name: string;
  kind: number;
  startTimeUnixNano: string;
  endTimeUnixNano: string;
  status: { code: number };
  attributes: Record<string, string | number | boolean>;
  /** The resource's `service.name`. */
  serviceName: string;
}

/** A stand-in OTLP/HTTP collector on a loopback port: POST /v1/traces, JSON encoding. */
export interface OtlpCollector {
  /** Its traces URL. */
  readonly url: string;
  readonly spans: ReceivedSpan[];
  /** Each request's headers. */
  readonly requests: Headers[];
  /** Resolves once at least `count` spans have arrived. */
  spansArrived(count: number): Promise<ReceivedSpan[]>;
  /** Resolves once at least `count` export requests have arrived (answered or held). */
  requestsArrived(count: number): Promise<void>;
  stop(): Promise<void>;
}

/** `answer`: "ok" decodes and answers 200; "hang" holds every request unanswered until stop. */
export async function startOtlpCollector(answer: "ok" | "hang" = "ok"): Promise<OtlpCollector> {
  const runtime = await currentRuntime();
  const spans: ReceivedSpan[] = [];
  const requests: Headers[] = [];
  const held: Array<() => void> = [];
  const waiters: Array<() => void> = [];
  const notify = () => waiters.splice(0).forEach((wake) => wake());
  const until = (ready: () => boolean) =>
    new Promise<void>((resolve) => {
      const check = () => (ready() ? resolve() : waiters.push(check));
      check();
    });
  const server: Server = await runtime.serve({
    hostname: "127.0.0.1",
    port: 0,
    async fetch(request: Request): Promise<Response> {
      const text = await request.text();
      requests.push(request.headers);
      if (answer === "hang") {
        notify();
        await new Promise<void>((resolve) => held.push(resolve));
        return new Response("{}", { headers: { "content-type": "application/json" } });
      }
      if (request.method !== "POST" || new URL(request.url).pathname !== "/v1/traces") return new Response("not found", { status: 404 });
      if (request.headers.get("content-type") !== "application/json") return new Response("unsupported media type", { status: 415 });
      spans.push(...decode(JSON.parse(text)));
      notify();
      return new Response("{}", { headers: { "content-type": "application/json" } });
    },
  });
  return {
    url: `http://127.0.0.1:${server.port}/v1/traces`,
    spans,
    requests,
    spansArrived: async (count) => (await until(() => spans.length >= count), spans),
    requestsArrived: (count) => until(() => requests.length >= count),
    async stop() {
      held.splice(0).forEach((release) => release());
      await server.stop();
    },
  };
}

interface ExportRequest {
  resourceSpans: Array<{
    resource: { attributes: Array<{ key: string; value: OtlpValue }> };
    scopeSpans: Array<{ spans: Array<Omit<ReceivedSpan, "attributes" | "serviceName"> & { attributes: Array<{ key: string; value: OtlpValue }> }> }>;
  }>;
}

/** The spans of an ExportTraceServiceRequest (OTLP JSON). */
function decode(body: ExportRequest): ReceivedSpan[] {
  return body.resourceSpans.flatMap((resource) => {
    const serviceName = String(attributes(resource.resource.attributes)["service.name"]);
    return resource.scopeSpans.flatMap((scope) => scope.spans.map((span) => ({ ...span, attributes: attributes(span.attributes), serviceName })));
  });
}

function attributes(list: Array<{ key: string; value: OtlpValue }>): Record<string, string | number | boolean> {
  return Object.fromEntries(
    list.map(({ key, value }) => [key, value.stringValue ?? (value.intValue !== undefined ? Number(value.intValue) : (value.doubleValue ?? value.boolValue ?? NaN))]),
  );
}
