import type { AttributeValue, FinishedSpan, TracedCall } from "./trace-span.ts";

/**
 * The OTLP/HTTP JSON encoding of an ExportTraceServiceRequest
 * (opentelemetry-proto, `opentelemetry/proto/collector/trace/v1`): ids in hex, 64-bit integers
 * as decimal strings, enums as numbers.
 */
export function encodeTraces(calls: readonly TracedCall[], serviceName: string, version: string): string {
  const spans: unknown[] = [];
  for (const call of calls) {
    spans.push(encodeSpan(call, call.server));
    for (const attempt of call.attempts) spans.push(encodeSpan(call, attempt));
  }
  return JSON.stringify({
    resourceSpans: [
      {
        resource: { attributes: [attribute("service.name", serviceName), attribute("service.version", version)] },
        scopeSpans: [{ scope: { name: "renio", version }, spans }],
      },
    ],
  });
}

function encodeSpan(call: TracedCall, span: FinishedSpan): unknown {
  return {
    traceId: call.traceId,
    spanId: span.spanId,
    ...(span.parentSpanId === undefined ? {} : { parentSpanId: span.parentSpanId }),
    ...(call.traceState === undefined ? {} : { traceState: call.traceState }),
    name: span.name,
    kind: span.kind,
    startTimeUnixNano: unixNano(span.startMs),
    endTimeUnixNano: unixNano(Math.max(span.startMs, span.endMs)),
    attributes: Object.entries(span.attributes).map(([key, value]) => attribute(key, value)),
    status: span.error ? { code: 2 } : { code: 0 },
  };
}

function attribute(key: string, value: AttributeValue): unknown {
  if (typeof value === "string") return { key, value: { stringValue: value } };
  return { key, value: Number.isInteger(value) ? { intValue: String(value) } : { doubleValue: value } };
}

/** Epoch ms (fractional) as a decimal string of nanoseconds, exact to the microsecond. */
export function unixNano(epochMs: number): string {
  const micros = Math.round(epochMs * 1000);
  return `${micros}000`;
}
