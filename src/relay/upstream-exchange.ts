import { clientResponseHeaders } from "../providers/upstream-headers.ts";
import type { Provider } from "../providers/provider.ts";
import { usageFromJson } from "../sse/usage-json.ts";
import { createUsageTap, type TapEnd, type UsageTap } from "../sse/usage-tap.ts";
import { RelayError } from "../shared/relay-error.ts";
import type { CallInput } from "./call-context.ts";
import type { CallEnd } from "./call-end.ts";
import type { ConnectCheck } from "./upstream-connect.ts";
import { describeUpstreamFailure } from "./upstream-failure.ts";
import { sendUpstream, type Answered, type Sent } from "./upstream-send.ts";

/** What an unexpected failure inside the exchange is recorded as. */
const INTERNAL_ERROR = new RelayError(500, "internal_error", "Renio hit an internal error");

/** What the forward step needs. */
export interface Exchange {
  readonly input: CallInput;
  readonly provider: Provider;
  readonly body: Uint8Array<ArrayBuffer>;
  /** Renio asked for OpenAI stream usage the caller did not want: remove that chunk. */
  readonly dropUsageChunk: boolean;
  /** Extra headers for the client (request id, budget). */
  readonly headers: Readonly<Record<string, string>>;
  /** Receives how the call ended, exactly once. */
  readonly onEnd: (end: CallEnd) => void;
  /** Enforces the provider's connect timeout while its pooled connection is cold. */
  readonly connectCheck: ConnectCheck;
}

/**
 * Forwards a call and returns the client's response. Streams pass through the usage tap chunk
 * by chunk; JSON bodies are read whole (usage sits at the end). `onEnd` runs exactly once on
 * every path: answer relayed, stream cut or cancelled, upstream failure, and Renio's own
 * unexpected failures (outcome `relay_error`, then the error is rethrown).
 */
export async function exchange(call: Exchange): Promise<Response> {
  let sent: Sent;
  try {
    sent = await sendUpstream(call.provider, call.input, call.body, call.connectCheck);
  } catch (error) {
    call.onEnd(relayError(error, false, null));
    throw error;
  }
  if ("failure" in sent) {
    const { failure } = sent;
    call.onEnd({ kind: "failed", ...failure, firstByteAt: null, upstreamMs: null });
    throw failure.error;
  }
  const answered = sent.answered;
  let headers: Headers;
  let isStream: boolean;
  try {
    const upstream = answered.response;
    headers = clientResponseHeaders(upstream.headers);
    for (const [name, value] of Object.entries(call.headers)) headers.set(name, value);
    isStream = upstream.body !== null && (upstream.headers.get("content-type") ?? "").startsWith("text/event-stream");
  } catch (error) {
    endInError(call, answered, error, null);
    throw error;
  }
  return isStream ? relayStream(call, answered, headers) : await relayWhole(call, answered, headers);
}

/** A JSON (or any non-stream) answer: read whole, then relayed. */
async function relayWhole(call: Exchange, answered: Answered, headers: Headers): Promise<Response> {
  const upstream = answered.response;
  let bytes: Uint8Array<ArrayBuffer>;
  try {
    bytes = new Uint8Array(await upstream.arrayBuffer());
  } catch (error) {
    answered.release();
    const failure = describeUpstreamFailure(error, answered.cause(), call.provider.id);
    call.onEnd({ kind: "failed", ...failure, mayHaveBeenBilled: true, firstByteAt: null, upstreamMs: performance.now() - answered.sentAt });
    throw failure.error;
  }
  let response: Response;
  let end: CallEnd;
  try {
    const usage = upstream.ok ? usageFromJson(bytes, call.input.route.wire) : null;
    response = new Response(bytes, { status: upstream.status, headers });
    end = {
      kind: "completed",
      status: upstream.status,
      usage,
      usageFinal: usage !== null,
      mayHaveBeenBilled: upstream.ok,
      firstByteAt: performance.now(),
      upstreamMs: performance.now() - answered.sentAt,
      responseBody: bytes,
    };
  } catch (error) {
    endInError(call, answered, error, null);
    throw error;
  }
  answered.release();
  call.onEnd(end);
  return response;
}

/** A stream: relayed through the usage tap, ended when the tap ends. */
function relayStream(call: Exchange, answered: Answered, headers: Headers): Response {
  const upstream = answered.response;
  const status = upstream.status;
  const onTapEnd = (how: TapEnd, error?: unknown) => {
    if (how === "failed") return endInError(call, answered, error, tap.firstByteAt());
    answered.release();
    // The client going away aborts the upstream read: that is a cancel, not a cut.
    const kind = how === "completed" ? "completed" : how === "cancelled" || answered.cause() === "client" ? "cancelled" : "cut";
    call.onEnd({
      kind,
      status,
      usage: tap.usage(),
      usageFinal: how === "completed" || tap.usageFinal(),
      mayHaveBeenBilled: true,
      firstByteAt: tap.firstByteAt(),
      upstreamMs: performance.now() - answered.sentAt,
      responseBody: null,
    });
  };
  const tap: UsageTap = createUsageTap(upstream.body!, call.input.route.wire, { dropUsageChunk: call.dropUsageChunk }, onTapEnd);
  return new Response(tap.body, { status, headers });
}

/** Renio's own failure after the provider answered: stop the upstream call, record `relay_error`. */
function endInError(call: Exchange, answered: Answered, error: unknown, firstByteAt: number | null): void {
  answered.abort();
  answered.release();
  call.onEnd(relayError(error, true, firstByteAt));
}

function relayError(error: unknown, mayHaveBeenBilled: boolean, firstByteAt: number | null): CallEnd {
  return { kind: "failed", outcome: "relay_error", error: error instanceof RelayError ? error : INTERNAL_ERROR, mayHaveBeenBilled, firstByteAt, upstreamMs: null };
}
