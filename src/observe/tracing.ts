import type { TracingConfig } from "../config/config-schema.ts";
import { createTracer, type Tracer } from "./call-trace.ts";
import { createSpanExporter, type SpanExporter } from "./span-exporter.ts";

/** Renio's version, as `service.version` of its spans. */
const SERVICE_VERSION = "0.1.0";

/** A running tracer and the exporter it feeds. */
export interface Tracing {
  readonly tracer: Tracer;
  readonly exporter: SpanExporter;
}

/** Starts the exporter and tracer of the config; undefined when tracing is off. */
export function startTracing(config: TracingConfig, onError: (message: string) => void): Tracing | undefined {
  if (!config.enabled || config.otlpEndpoint === undefined) return undefined;
  const exporter = createSpanExporter({
    endpoint: config.otlpEndpoint,
    headers: config.headers,
    serviceName: config.serviceName,
    serviceVersion: SERVICE_VERSION,
    maxQueue: config.maxQueue,
    maxBatch: config.maxBatch,
    intervalMs: config.exportIntervalMs,
    timeoutMs: config.exportTimeoutMs,
    onError,
  });
  return { tracer: createTracer({ sampleRatio: config.sampleRatio, record: (call) => exporter.add(call) }), exporter };
}
