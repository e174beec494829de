import type { Provider } from "../providers/provider.ts";
import type { JournalStart, Outcome } from "../shared/journal-records.ts";
import { RelayError } from "../shared/relay-error.ts";
import type { Usage } from "../shared/usage.ts";
import type { CallInput } from "../shared/call-context.ts";
import { formatTraceparent, parseTraceparent, randomHex, SAMPLED, usableTracestate, type TraceParent } from "./trace-context.ts";
import { SPAN_KIND, type AttributeValue, type FinishedSpan, type TracedCall } from "./trace-span.ts";

/** Headers to add to one upstream request (`traceparent`, `tracestate`). */
export type TraceHeaders = ReadonlyArray<readonly [string, string]>;

/** What routing learned, for the CLIENT spans. */
export interface RoutedFacts {
  readonly provider: Provider;
  /** `gen_ai.provider.name`: the provider's wire type (`openai`, `anthropic`, `mock`). */
  readonly providerName: string;
  readonly maxTokens: number | undefined;
  /** The model asked of that provider (default: the entry's). */
  readonly upstreamModel?: string;
}

/** How the call ended, as settled (the journal's figures). */
export interface EndFacts {
  readonly start: JournalStart;
  readonly outcome: Outcome;
  readonly status: number;
  readonly errorCode: string | null;
  readonly usage: Usage | null;
  readonly cost: number | null;
  readonly currency: string;
  /** ms from sending the (last) upstream attempt to the end of its body. */
  readonly upstreamMs: number | null;
}

/** One call's trace: the W3C context it carries upstream and, when sampled, its spans. */
export interface CallTrace {
  /** Where the next attempt goes (each attempt's CLIENT span carries the facts in force when it started). */
  routed(facts: RoutedFacts): void;
  /** Starts one upstream attempt (a CLIENT span) and returns the headers that carry it. */
  attempt(): TraceHeaders;
  /** Ends the call's spans and hands them to the exporter; the first call wins, later ones are ignored. Never throws. */
  end(facts: EndFacts): void;
}

/** Starts a call's trace when it arrives. */
export interface Tracer {
  begin(input: CallInput): CallTrace;
}

/** Ends the trace of a call refused (or failed in Renio) before it was forwarded. */
export function endRefused(trace: CallTrace, start: JournalStart, error: unknown, currency: string): void {
  const refusal = error instanceof RelayError ? error : undefined;
  trace.end({
    start,
    outcome: refusal === undefined ? "relay_error" : refusal.code === "client_aborted" ? "client_aborted" : "refused",
    status: refusal?.status ?? 500,
    errorCode: refusal?.code ?? "internal_error",
    usage: null,
    cost: null,
    currency,
    upstreamMs: null,
  });
}

const NO_HEADERS: TraceHeaders = [];
const IGNORE = () => {};

/** Tracing off: a valid `traceparent` (with its `tracestate`) goes upstream unchanged; nothing is recorded. */
export const passThroughTracer: Tracer = {
  begin(input) {
    const headers = input.request.headers;
    const parent = parseTraceparent(headers.get("traceparent"));
    if (parent === undefined) return PASS_NOTHING;
    const forwarded: [string, string][] = [["traceparent", headers.get("traceparent")!.trim()]];
    const state = usableTracestate(headers.get("tracestate"));
    if (state !== undefined) forwarded.push(["tracestate", state]);
    return { routed: IGNORE, attempt: () => forwarded, end: IGNORE };
  },
};
const PASS_NOTHING: CallTrace = { routed: IGNORE, attempt: () => NO_HEADERS, end: IGNORE };

/** Options of {@link createTracer}. */
export interface TracerOptions {
  /** Share of new traces recorded (0..1); a client's traceparent decides by its sampled flag. */
  readonly sampleRatio: number;
  /** Receives every recorded call (the exporter's queue); must not block. */
  readonly record: (call: TracedCall) => void;
}

/** Tracing on: Renio's own SERVER span per call, a CLIENT child per upstream attempt. */
export function createTracer(options: TracerOptions): Tracer {
  return {
    begin(input) {
      const headers = input.request.headers;
      const parent = parseTraceparent(headers.get("traceparent"));
      const sampled = parent === undefined ? Math.random() < options.sampleRatio : (parent.flags & SAMPLED) !== 0;
      return new RecordingTrace(input, parent, parent === undefined ? undefined : usableTracestate(headers.get("tracestate")), sampled, options.record);
    },
  };
}

interface Attempt {
  readonly spanId: string;
  /** performance.now() when sent. */
  readonly sentAt: number;
  /** Where it went. */
  readonly facts: RoutedFacts | undefined;
}

class RecordingTrace implements CallTrace {
  private readonly traceId: string;
  private readonly spanId = randomHex(8);
  private readonly attempts: Attempt[] = [];
  private facts: RoutedFacts | undefined;
  private ended = false;

  constructor(
    private readonly input: CallInput,
    private readonly parent: TraceParent | undefined,
    private readonly traceState: string | undefined,
    private readonly sampled: boolean,
    private readonly record: (call: TracedCall) => void,
  ) {
    this.traceId = parent?.traceId ?? randomHex(16);
  }

  routed(facts: RoutedFacts): void {
    this.facts = facts;
  }

  attempt(): TraceHeaders {
    const spanId = randomHex(8);
    this.attempts.push({ spanId, sentAt: performance.now(), facts: this.facts });
    const traceparent = formatTraceparent(this.traceId, spanId, this.sampled ? SAMPLED : 0);
    return this.traceState === undefined ? [["traceparent", traceparent]] : [["traceparent", traceparent], ["tracestate", this.traceState]];
  }

  end(facts: EndFacts): void {
    if (this.ended) return;
    this.ended = true;
    if (!this.sampled) return;
    try {
      this.record(this.spans(facts, performance.now()));
    } catch (error) {
      console.error(`renio: tracing ${facts.start.id} failed: ${error instanceof Error ? error.message : String(error)}`);
    }
  }

  private spans(facts: EndFacts, endedAt: number): TracedCall {
    const { start, usage } = facts;
    const epoch = (at: number) => this.input.receivedAt + (at - this.input.startedAt);
    const operation = operationOf(start.route);
    const error = facts.outcome !== "ok";
    const outcome: Record<string, AttributeValue> = { "http.response.status_code": facts.status };
    if (facts.errorCode !== null) outcome["error.type"] = facts.errorCode;
    if (usage !== null) {
      // GenAI conventions: input tokens include cached reads, which are also given apart.
      outcome["gen_ai.usage.input_tokens"] = usage.inputTokens + usage.cachedInputTokens;
      outcome["gen_ai.usage.output_tokens"] = usage.outputTokens;
      if (usage.cachedInputTokens > 0) outcome["gen_ai.usage.cache_read.input_tokens"] = usage.cachedInputTokens;
      const cacheWrites = (usage.cacheWrite5mTokens ?? 0) + (usage.cacheWrite1hTokens ?? 0);
      if (cacheWrites > 0) outcome["gen_ai.usage.cache_creation.input_tokens"] = cacheWrites;
      if (usage.responseModel !== undefined) outcome["gen_ai.response.model"] = usage.responseModel;
    }
    const server: Record<string, AttributeValue> = {
      "http.request.method": "POST",
      "http.route": start.route,
      "gen_ai.operation.name": operation,
      "renio.entry_id": start.id,
      "renio.outcome": facts.outcome,
      ...outcome,
    };
    if (start.model !== null) server["gen_ai.request.model"] = start.model;
    if (start.keyId !== null) server["renio.key_id"] = start.keyId;
    if (start.project !== null) server["renio.project"] = start.project;
    if (start.provider !== null) server["renio.provider"] = start.provider;
    if (start.requestId !== null) server["renio.request_id"] = start.requestId;
    if (start.endUser) server["renio.end_user"] = start.endUser;
    if (start.team) server["renio.team"] = start.team;
    if (start.tags && start.tags.length > 0) server["renio.tags"] = start.tags.map(([name, value]) => `${name}=${value}`).join(",");
    if (start.downgradedFrom) server["renio.downgraded_from"] = start.downgradedFrom;
    // plain-object: the key is `renio.cost_` and a three-letter currency code, never a prototype member's name
    if (facts.cost !== null) server[facts.currency === "USD" ? "renio.cost_usd" : `renio.cost_${facts.currency.toLowerCase()}`] = facts.cost;

    const attempts = this.attempts.map((attempt, index): FinishedSpan => {
      const last = index === this.attempts.length - 1;
      const client: Record<string, AttributeValue> = { "gen_ai.operation.name": operation, ...(last ? outcome : {}) };
      const routed = attempt.facts;
      if (routed !== undefined) {
        client["gen_ai.provider.name"] = routed.providerName;
        client["gen_ai.system"] = routed.providerName;
        if (routed.maxTokens !== undefined) client["gen_ai.request.max_tokens"] = routed.maxTokens;
        const endpoint = routed.provider.endpoint;
        if (endpoint !== undefined) {
          client["server.address"] = endpoint.hostname;
          client["server.port"] = endpoint.port;
        }
      }
      const model = routed?.upstreamModel ?? start.upstreamModel;
      if (model !== null) client["gen_ai.request.model"] = model;
      const upstreamEnd = last && facts.upstreamMs !== null ? attempt.sentAt + facts.upstreamMs : index + 1 < this.attempts.length ? this.attempts[index + 1]!.sentAt : endedAt;
      return {
        spanId: attempt.spanId,
        parentSpanId: this.spanId,
        name: model === null ? operation : `${operation} ${model}`,
        kind: SPAN_KIND.client,
        startMs: epoch(attempt.sentAt),
        endMs: epoch(upstreamEnd),
        attributes: client,
        error: last && error,
      };
    });
    return {
      traceId: this.traceId,
      traceState: this.traceState,
      server: {
        spanId: this.spanId,
        parentSpanId: this.parent?.parentId,
        name: `POST ${start.route}`,
        kind: SPAN_KIND.server,
        startMs: this.input.receivedAt,
        endMs: epoch(endedAt),
        attributes: server,
        error,
      },
      attempts,
    };
  }
}

/** `gen_ai.operation.name` of a route. */
function operationOf(route: string): string {
  switch (route) {
    case "/v1/completions":
      return "text_completion";
    case "/v1/embeddings":
      return "embeddings";
    case "/v1/messages/count_tokens":
      return "count_tokens";
    default:
      return "chat";
  }
}
