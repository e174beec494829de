import { encodeTraces } from "./otlp-json.ts";
import type { TracedCall } from "./trace-span.ts";

/** How the exporter has fared, in spans. */
export interface ExportStats {
  readonly exported: number;
  /** Dropped: the queue was full, or the collector refused, failed or did not answer in time. */
  readonly dropped: number;
  readonly queued: number;
}

/** Sends finished spans to an OTLP/HTTP collector in batches, off the request path. */
export interface SpanExporter {
  /** Queues one call's spans (never blocks; drops and counts them when the queue is full). */
  add(call: TracedCall): void;
  stats(): ExportStats;
  /** Stops the timer and sends what is queued, within the export timeout; what cannot be sent is dropped. */
  shutdown(): Promise<void>;
}

/** Options of {@link createSpanExporter}. */
export interface SpanExporterOptions {
  /** The collector's traces URL, e.g. http://127.0.0.1:4318/v1/traces. */
  readonly endpoint: string;
  readonly headers: Readonly<Record<string, string>>;
  readonly serviceName: string;
  readonly serviceVersion: string;
  /** Most spans held; beyond it new spans are dropped. */
  readonly maxQueue: number;
  /** Most spans per export request. */
  readonly maxBatch: number;
  /** Time between exports of a partial batch. */
  readonly intervalMs: number;
  /** Time allowed for one export request. */
  readonly timeoutMs: number;
  readonly fetch?: (url: string, init: RequestInit) => Promise<Response>;
  /** Told about a failed export (a one-line reason; once per failure streak). */
  readonly onError?: (message: string) => void;
}

const spanCount = (call: TracedCall) => 1 + call.attempts.length;

/** Creates the exporter and starts its timer. */
export function createSpanExporter(options: SpanExporterOptions): SpanExporter {
  const send = options.fetch ?? ((url, init) => fetch(url, init));
  // The collector as named in messages: no user:password, no query (either may hold a token).
  const shown = ((url) => `${url.origin}${url.pathname}`)(new URL(options.endpoint));
  const queue: TracedCall[] = [];
  let queued = 0;
  let exported = 0;
  let dropped = 0;
  let sending: Promise<void> | undefined;
  let soon: ReturnType<typeof setTimeout> | undefined;
  let failing = false;
  let stopped = false;

  /** Sends one batch (at most one request in flight); resolves when it is done either way. */
  const exportBatch = (): Promise<void> => {
    if (sending !== undefined) return sending;
    if (queue.length === 0) return Promise.resolve();
    const batch: TracedCall[] = [];
    let spans = 0;
    while (queue.length > 0 && spans < options.maxBatch) {
      const call = queue.shift()!;
      batch.push(call);
      spans += spanCount(call);
    }
    queued -= spans;
    sending = post(batch, spans).finally(() => {
      sending = undefined;
      if (!stopped && queued >= options.maxBatch) schedule();
    });
    return sending;
  };

  const post = async (batch: TracedCall[], spans: number): Promise<void> => {
    const controller = new AbortController();
    const timer = setTimeout(() => controller.abort(), options.timeoutMs);
    try {
      const response = await send(options.endpoint, {
        method: "POST",
        headers: { ...options.headers, "content-type": "application/json" },
        body: encodeTraces(batch, options.serviceName, options.serviceVersion),
        signal: controller.signal,
      });
      await response.arrayBuffer();
      if (!response.ok) throw new Error(`the collector answered ${response.status}`);
      exported += spans;
      failing = false;
    } catch (error) {
      dropped += spans;
      if (!failing) {
        failing = true;
        const reason = controller.signal.aborted ? `no answer within ${options.timeoutMs} ms` : error instanceof Error ? error.message : String(error);
        options.onError?.(`exporting ${spans} span(s) to ${shown} failed (${reason}); dropped`);
      }
    } finally {
      clearTimeout(timer);
    }
  };

  /** Exports on the next turn of the event loop, not inside the call that filled the batch. */
  const schedule = () => {
    soon ??= setTimeout(() => {
      soon = undefined;
      void exportBatch();
    }, 0);
  };
  const interval = setInterval(() => void exportBatch(), options.intervalMs);

  return {
    add(call) {
      const spans = spanCount(call);
      if (stopped || queued + spans > options.maxQueue) {
        dropped += spans;
        return;
      }
      queue.push(call);
      queued += spans;
      if (queued >= options.maxBatch) schedule();
    },
    stats: () => ({ exported, dropped, queued }),
    async shutdown() {
      stopped = true;
      clearInterval(interval);
      clearTimeout(soon);
      const deadline = performance.now() + options.timeoutMs;
      await sending;
      while (queue.length > 0 && performance.now() < deadline) await exportBatch();
      for (const call of queue.splice(0)) dropped += spanCount(call);
      queued = 0;
    },
  };
}
