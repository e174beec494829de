import { z } from "zod";
import { positiveInt } from "./schema-numbers.ts";

/**
 * W3C trace context and OTLP/HTTP span export (see docs/observability.md). Off: a client's valid
 * `traceparent` is forwarded upstream unchanged and nothing is exported.
 */
export const tracingSchema = z
  .strictObject({
    enabled: z.boolean().default(false).describe("export one trace per call"),
    /** The collector's OTLP/HTTP traces URL (JSON encoding). */
    otlpEndpoint: z.url({ protocol: /^https?$/, error: "must be an http:// or https:// URL, e.g. http://127.0.0.1:4318/v1/traces" }).optional().describe("the collector's OTLP/HTTP traces URL"),
    /** Extra request headers for the collector (usually `${ENV_VAR}` for a token). */
    headers: z.record(z.string(), z.string()).default({}).describe("headers of the export requests (e.g. `authorization`)"),
    serviceName: z.string().min(1).default("renio").describe("`service.name` of the spans"),
    /** Share of new traces recorded; a client's traceparent decides by its sampled flag. */
    sampleRatio: z.number().min(0).max(1).default(1).describe("share of new traces recorded (a client's sampled flag decides for its own)"),
    /** Most spans waiting for export; beyond it new spans are dropped (and counted). */
    maxQueue: positiveInt.default(2048).describe("spans queued; more are dropped and counted"),
    /** Most spans per export request. */
    maxBatch: positiveInt.default(256).describe("spans per export request"),
    /** Time between exports of a partial batch. */
    exportIntervalMs: positiveInt.default(5000).describe("how often a batch is sent when not full"),
    /** Time allowed for one export request; a collector that does not answer loses that batch. */
    exportTimeoutMs: positiveInt.default(10_000).describe("one export request's time"),
  })
  .refine((tracing) => !tracing.enabled || tracing.otlpEndpoint !== undefined, {
    message: "set `otlpEndpoint` (e.g. http://127.0.0.1:4318/v1/traces) when tracing is enabled",
    path: ["otlpEndpoint"],
  });
