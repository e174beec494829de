import type { AnswerGuard } from "../guardrails/guarded-call.ts";
import { clientResponseHeaders, headerPathOf } from "../providers/header-policy.ts";
import { usageFromJson } from "../usage/usage-json.ts";
import { createUsageTap, type StreamHead, type TapEnd, type UsageTap } from "../usage/usage-tap.ts";
import { RelayError } from "../shared/relay-error.ts";
import type { CallInput } from "../shared/call-context.ts";
import type { CallEnd } from "../routing/call-end.ts";
import type { CallTrace } from "../observe/call-trace.ts";
import type { ConnectCheck } from "../routing/upstream-connect.ts";
import { FailureAfterAnswer, sendRouted, type AttemptRoute, type Delivered } from "../routing/attempt-loop.ts";
import type { CallAttempts } from "../routing/call-attempts.ts";
import type { Target } from "../routing/route-plan.ts";
import type { UpstreamFailure } from "../routing/upstream-failure.ts";
import type { Answered } from "../routing/upstream-send.ts";

/** What an unexpected failure inside the exchange is recorded as. */
const INTERNAL_ERROR = new RelayError(500, "internal_error", "Renio hit an internal error");

/** What the forward step needs. */
export interface Exchange {
  readonly input: CallInput;
  /** The call's targets, attempts and deadline (see attempt-loop.ts). */
  readonly route: AttemptRoute;
  /** Where the first attempt goes. */
  readonly first: Target;
  /** Renio asked for OpenAI stream usage the caller did not want: remove that chunk. */
  readonly dropUsageChunk: boolean;
  /** Extra headers for the client (request id, budget). */
  readonly headers: Readonly<Record<string, string>>;
  /** Receives how the call ended, exactly once. */
  readonly onEnd: (end: CallEnd) => void;
  /** Enforces the provider's connect timeout while its pooled connection is cold. */
  readonly connectCheck: ConnectCheck;
  /** The call's trace: each upstream attempt carries its context. */
  readonly trace: CallTrace;
  /** What the call's guardrail policies do to an answer from `target` (absent: no policy applies to the call). */
  readonly guardAnswer?: (target: Target) => AnswerGuard | undefined;
}

/**
 * Forwards a call and returns the client's response. Streams pass through the usage tap chunk
 * by chunk; JSON bodies are read whole (usage sits at the end). `onEnd` runs exactly once on
 * every path: answer relayed, stream cut or cancelled, upstream failure, and Renio's own
 * unexpected failures (outcome `relay_error`, then the error is rethrown).
 */
export async function exchange(call: Exchange): Promise<Response> {
  let delivered: Delivered;
  try {
    delivered = await sendRouted(call.route, call.first, call.input, call.connectCheck, call.trace);
  } catch (error) {
    // Before anything was sent nothing can have been billed; after an answer it may have been.
    const answered = error instanceof FailureAfterAnswer;
    const cause = answered ? error.cause : error;
    call.onEnd(relayError(cause, answered, null));
    throw cause;
  }
  if ("failure" in delivered) {
    const failure = afterAttempts(delivered.failure, call.route.attempts);
    call.onEnd({ kind: "failed", ...failure, firstByteAt: null, upstreamMs: null });
    throw failure.error;
  }
  const { answered, bytes, head, target } = delivered;
  let headers: Headers;
  try {
    const upstream = answered.response;
    headers = clientResponseHeaders(upstream.headers, headerPathOf(call.input.route.wire, target.provider.translated === true));
    for (const [name, value] of Object.entries(call.headers)) headers.set(name, value);
    const attempts = call.route.attempts.count;
    if (attempts > 1) headers.set("x-renio-attempts", String(attempts));
  } catch (error) {
    endInError(call, answered, error, null);
    throw error;
  }
  // Only a successful answer is guarded (an error carries no answer text).
  const guard = call.guardAnswer !== undefined && answered.response.ok ? call.guardAnswer(target) : undefined;
  return head !== undefined ? relayStream(call, answered, headers, head, guard) : relayWhole(call, answered, headers, bytes!, guard);
}

/** The last failure, its message saying how many attempts were made when there were several. */
function afterAttempts(failure: UpstreamFailure, attempts: CallAttempts): UpstreamFailure {
  if (attempts.records.length === 0) return failure;
  const { error } = failure;
  const message = `${error.message}; ${attempts.count} attempts were made (${attempts.summary()}, then this one)`;
  return { ...failure, error: new RelayError(error.status, error.code, message, { ...error.headers, "x-renio-attempts": String(attempts.count) }) };
}

/** A JSON (or any non-stream) answer, read whole by the attempt loop: relayed. */
function relayWhole(call: Exchange, answered: Answered, headers: Headers, bytes: Uint8Array<ArrayBuffer>, guard: AnswerGuard | undefined): Response {
  const upstream = answered.response;
  let response: Response;
  let end: CallEnd;
  let blocked: RelayError | undefined;
  try {
    // Usage is read from the provider's bytes; the client gets (and the journal keeps) the guarded ones.
    const usage = upstream.ok ? usageFromJson(bytes, call.input.route.wire) : null;
    const guarded = guard?.json(bytes) ?? { client: bytes, journal: bytes };
    if (guarded instanceof RelayError) blocked = guarded;
    const answer = guarded instanceof RelayError ? undefined : guarded;
    if (answer !== undefined && answer.client !== bytes) headers.delete("content-length");
    response = new Response(answer?.client ?? null, { status: upstream.status, headers });
    end = {
      kind: "completed",
      status: upstream.status,
      usage,
      usageFinal: usage !== null,
      mayHaveBeenBilled: upstream.ok,
      firstByteAt: performance.now(),
      upstreamMs: performance.now() - answered.sentAt,
      responseBody: answer?.journal ?? null,
    };
  } catch (error) {
    endInError(call, answered, error, null);
    throw error;
  }
  answered.release();
  call.onEnd(end);
  // A policy blocked the answer: settled as answered, refused to the client in its envelope.
  if (blocked !== undefined) throw blocked;
  return response;
}

/** A stream: relayed through the usage tap, ended when the tap ends (or stalls: routing.chunkTimeoutMs). */
function relayStream(call: Exchange, answered: Answered, headers: Headers, head: StreamHead, guard: AnswerGuard | undefined): Response {
  const upstream = answered.response;
  const status = upstream.status;
  const onTapEnd = (how: TapEnd, error?: unknown) => {
    if (how === "failed") return endInError(call, answered, error, tap.firstByteAt());
    answered.release();
    // Once the terminal event was handed on, the client has the whole answer: whichever
    // connection closes first afterwards (a client hanging up at `[DONE]`, a provider slow to
    // end its body), the call completed. A stall (no read for the chunk timeout) ends it as such. Before it, the client going away aborts the upstream
    // read: that is a cancel, not a cut.
    const kind = how === "completed" || tap.terminalSent() ? "completed" : how === "stalled" ? "stalled" : how === "cancelled" || answered.cause() === "client" ? "cancelled" : "cut";
    call.onEnd({
      kind,
      status,
      usage: tap.usage(),
      // A clean end is not final usage: an Anthropic stream ending after message_start has only its placeholder.
      usageFinal: tap.usageFinal(),
      mayHaveBeenBilled: true,
      firstByteAt: (guarded ?? tap).firstByteAt(),
      upstreamMs: performance.now() - answered.sentAt,
      responseBody: null,
    });
  };
  // The body goes to the HTTP server: a direct stream where the runtime has them. A guarded
  // stream reads the tap (usage is read from the provider's bytes) and the call ends once the guard is done too.
  const tap: UsageTap = createUsageTap(head, call.input.route.wire, { dropUsageChunk: call.dropUsageChunk, direct: guard === undefined, stallMs: call.route.chunkTimeoutMs }, guard === undefined ? onTapEnd : (how, error) => void guarded!.done.then(() => onTapEnd(how, error)));
  const guarded = guard?.stream(tap.body);
  if (guarded !== undefined) headers.delete("content-length");
  return new Response(guarded?.body ?? tap.body, { status, headers });
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
