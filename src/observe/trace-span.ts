/** A finished span, as the exporter encodes it (OTLP's Span, in Renio's terms). */

/** OTLP span kinds Renio emits. */
export const SPAN_KIND = { server: 2, client: 3 } as const;

/** An attribute value: OTLP string, int or double. */
export type AttributeValue = string | number;

/** One finished span. Attributes never hold a secret or a body. */
export interface FinishedSpan {
  readonly spanId: string;
  /** The parent span (the client's for the SERVER span; the SERVER span for a CLIENT span). */
  readonly parentSpanId: string | undefined;
  readonly name: string;
  readonly kind: (typeof SPAN_KIND)[keyof typeof SPAN_KIND];
  /** Epoch ms, fractional. */
  readonly startMs: number;
  readonly endMs: number;
  readonly attributes: Readonly<Record<string, AttributeValue>>;
  /** OTLP status ERROR (else UNSET). */
  readonly error: boolean;
}

/** The spans of one call: the SERVER span and a CLIENT child per upstream attempt. */
export interface TracedCall {
  readonly traceId: string;
  readonly traceState: string | undefined;
  readonly server: FinishedSpan;
  readonly attempts: readonly FinishedSpan[];
}
