import { clientResponseHeaders, forwardableRequestHeaders } from "../providers/upstream-headers.ts";
import type { Provider } from "../providers/provider.ts";
import { createUsageScanner } from "../sse/usage-scanner.ts";
import { usageFromJson } from "../sse/usage-json.ts";
import type { Outcome } from "../shared/journal-records.ts";
import type { Usage } from "../shared/usage.ts";
import { RelayError } from "../shared/relay-error.ts";
import type { CallInput } from "./call-context.ts";
import type { ConnectCheck } from "./upstream-connect.ts";
import { describeUpstreamFailure, type AbortCause } from "./upstream-failure.ts";

/** What an unexpected failure inside the exchange is recorded as. */
const INTERNAL_ERROR = new RelayError(500, "internal_error", "Renio hit an internal error");

/** How an exchange ended, handed to the settlement callback exactly once. */
export interface ExchangeEnd {
  outcome: Outcome;
  status: number;
  /** Usage the provider reported (for a cut stream: what was seen before the cut). */
  usage: Usage | null;
  /**
   * Whether `usage` is the provider's final count: a JSON body's, or a stream's that ended
   * cleanly or carried its final usage event. Otherwise it is at best a lower bound.
   */
  usageFinal: boolean;
  mayHaveBeenBilled: boolean;
  errorCode: string | null;
  /** performance.now() of the first body byte handed to the client, if any. */
  firstByteAt: number | null;
  /** ms from sending upstream to the end of the upstream body. */
  upstreamMs: number | null;
  /** Response body (JSON responses only), for `journal.bodies: "full"`. */
  responseBody: Uint8Array | null;
}

/** What the forward step needs. */
export interface Exchange {
  readonly input: CallInput;
  readonly provider: Provider;
  readonly body: Uint8Array<ArrayBuffer>;
  /** Renio asked for OpenAI stream usage the caller did not want: remove that chunk. */
  readonly dropUsageChunk: boolean;
  /** Extra headers for the client (request id, budget). */
  readonly headers: Readonly<Record<string, string>>;
  readonly onEnd: (end: ExchangeEnd) => void;
  /** Enforces the provider's connect timeout while its pooled connection is cold. */
  readonly connectCheck: ConnectCheck;
}

/**
 * Forwards a call and returns the client's response. Streams pass through chunk by chunk,
 * tapped for usage; JSON bodies are read whole (usage sits at the end). `onEnd` runs exactly
 * once on every path: success, upstream error, timeout, client abort, and Renio's own
 * unexpected failures (outcome `relay_error`, then the error is rethrown).
 */
export async function exchange(call: Exchange): Promise<Response> {
  const { input, provider } = call;
  const controller = new AbortController();
  let cause: AbortCause | undefined;
  const abortFor = (why: AbortCause) => {
    cause ??= why;
    controller.abort();
  };
  const onClientAbort = () => abortFor("client");
  const clientSignal = input.request.signal;
  clientSignal.addEventListener("abort", onClientAbort, { once: true });
  /** The first-byte timer, armed when the call is sent. */
  let timer: ReturnType<typeof setTimeout> | undefined;
  let ended = false;
  /** Whether the call was handed to the provider (it may have been billed). */
  let sent = false;
  const sentAt = performance.now();
  const end = (result: Omit<ExchangeEnd, "upstreamMs">, upstreamEnded: boolean) => {
    if (ended) return;
    ended = true;
    clearTimeout(timer);
    clientSignal.removeEventListener("abort", onClientAbort);
    call.onEnd({ ...result, upstreamMs: upstreamEnded ? performance.now() - sentAt : null });
  };
  /** Ends an exchange that yielded no usage and no response body for the journal. */
  const endFailed = (outcome: Outcome, error: RelayError, mayHaveBeenBilled: boolean, upstreamEnded: boolean, firstByteAt: number | null = null) =>
    end({ outcome, status: error.status, usage: null, usageFinal: false, mayHaveBeenBilled, errorCode: error.code, firstByteAt, responseBody: null }, upstreamEnded);
  /** Renio's own failure: stop the upstream call and record `relay_error` (no-op once ended). */
  const fail = (error: unknown, firstByteAt: number | null) => {
    controller.abort();
    endFailed("relay_error", error instanceof RelayError ? error : INTERNAL_ERROR, sent, false, firstByteAt);
  };

  try {
    return await forward();
  } catch (error) {
    fail(error, null);
    throw error;
  }

  async function forward(): Promise<Response> {
    const connecting = call.connectCheck.before(provider);
    if (connecting !== undefined) {
      try {
        await connecting;
      } catch (error) {
        if (!(error instanceof RelayError)) throw error;
        endFailed(error.code === "upstream_timeout" ? "timeout" : "upstream_error", error, false, false);
        throw error;
      }
    }
    let upstream: Response;
    try {
      const headers = forwardableRequestHeaders(input.request.headers);
      timer = setTimeout(abortFor, provider.firstByteTimeoutMs, "timeout");
      sent = true;
      upstream = await provider.send({ route: input.route, body: call.body, headers, requestId: input.id, signal: controller.signal });
    } catch (error) {
      const failure = describeUpstreamFailure(error, cause, provider.id);
      endFailed(failure.outcome, failure.error, failure.mayHaveBeenBilled, false);
      throw failure.error;
    }
    clearTimeout(timer);
    call.connectCheck.answered(provider.id);

    const headers = clientResponseHeaders(upstream.headers);
    for (const [name, value] of Object.entries(call.headers)) headers.set(name, value);
    const status = upstream.status;
    const upstreamOutcome: Outcome = upstream.ok ? "ok" : "upstream_error";
    const errorCode = upstream.ok ? null : `upstream_${status}`;
    const isStream = upstream.body !== null && (upstream.headers.get("content-type") ?? "").startsWith("text/event-stream");

    if (!isStream) {
      let bytes: Uint8Array<ArrayBuffer>;
      try {
        bytes = new Uint8Array(await upstream.arrayBuffer());
      } catch (error) {
        const failure = describeUpstreamFailure(error, cause, provider.id);
        endFailed(failure.outcome, failure.error, true, true);
        throw failure.error;
      }
      const usage = upstream.ok ? usageFromJson(bytes, input.route.wire) : null;
      end({ outcome: upstreamOutcome, status, usage, usageFinal: usage !== null, mayHaveBeenBilled: upstream.ok, errorCode, firstByteAt: performance.now(), responseBody: bytes }, true);
      return new Response(bytes, { status, headers });
    }

    const scanner = createUsageScanner(input.route.wire, { dropUsageChunk: call.dropUsageChunk });
    const reader = upstream.body!.getReader();
    let firstByteAt: number | null = null;
    /** `clean`: the upstream body ended normally, so the usage seen is all there is. */
    const finish = (outcome: Outcome, code: string | null, clean: boolean) =>
      end({ outcome, status, usage: scanner.usage(), usageFinal: clean || scanner.usageFinal(), mayHaveBeenBilled: true, errorCode: code, firstByteAt, responseBody: null }, true);
    // One pull-based stream: each upstream chunk is scanned for usage and forwarded as it comes.
    const body = new ReadableStream<Uint8Array>(
      {
        async pull(stream) {
          for (;;) {
            let read: Awaited<ReturnType<typeof reader.read>>;
            try {
              read = await reader.read();
            } catch {
              const aborted = cause === "client";
              finish(aborted ? "client_aborted" : "upstream_error", aborted ? "client_aborted" : "upstream_stream_cut", false);
              // Ends the response abruptly so the client sees the cut (a plain string: no stack in logs).
              stream.error("upstream stream cut");
              return;
            }
            try {
              const out = read.done ? scanner.end() : scanner.push(read.value);
              if (out.byteLength > 0) {
                firstByteAt ??= performance.now();
                stream.enqueue(out);
              }
              if (read.done) {
                stream.close();
                finish(upstreamOutcome, errorCode, true);
                return;
              }
              if (out.byteLength > 0) return;
            } catch (error) {
              fail(error, firstByteAt);
              void reader.cancel().catch(() => {});
              stream.error("relay error");
              return;
            }
          }
        },
        cancel(reason) {
          cause ??= "client";
          finish("client_aborted", "client_aborted", false);
          return reader.cancel(reason);
        },
      },
      { highWaterMark: 0 },
    );
    return new Response(body, { status, headers });
  }
}
