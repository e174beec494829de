import { RelayError } from "../shared/relay-error.ts";
import type { CallAttempts } from "./call-attempts.ts";
import type { CallInput } from "../shared/call-context.ts";
import type { CallTrace } from "../observe/call-trace.ts";
import type { RouteCursor, Target } from "./route-plan.ts";
import { backoffDelayMs, retryableFailure, retryableStatus, retryAfterMs, saysPromptTooLong } from "./retry-policy.ts";
import type { ConnectCheck } from "./upstream-connect.ts";
import { describeUpstreamFailure, type UpstreamFailure } from "./upstream-failure.ts";
import { sendUpstream, type Answered, type Sent } from "./upstream-send.ts";
import type { StreamHead } from "../usage/usage-tap.ts";

/** What the attempt loop needs of a call's route. */
export interface AttemptRoute {
  readonly cursor: RouteCursor;
  readonly attempts: CallAttempts;
  /** The body for `target` (model and output limit rewritten for it); undefined when the call cannot go there. */
  readonly bodyFor: (target: Target) => Uint8Array<ArrayBuffer> | undefined;
  /** performance.now() by which an answer must have started (the call's deadline). */
  readonly deadlineAt: number;
  /** The longest silence of a streamed answer (routing.chunkTimeoutMs): its head to its first chunk included. */
  readonly chunkTimeoutMs: number;
  /** Epoch ms (target health). */
  readonly clock: () => number;
  readonly random: () => number;
  /** Told before each attempt where it goes (the trace's CLIENT span). */
  readonly onAttempt: (target: Target) => void;
  /** The client asked for a streamed answer. */
  readonly streams: boolean;
}

/**
 * The answer to relay — `bytes`: a body other than a stream, read whole; `head`: a stream whose
 * first chunk was read — or why there is none.
 */
export type Delivered =
  | { readonly answered: Answered; readonly target: Target; readonly bytes?: Uint8Array<ArrayBuffer>; readonly head?: StreamHead }
  | { readonly failure: UpstreamFailure; readonly target: Target };

/** Why an attempt did not serve the call, and what it asks of the next. */
interface Miss {
  readonly status: number | null;
  readonly code: string;
  readonly mayHaveBeenBilled: boolean;
  readonly retryAfterMs?: number;
  readonly promptTooLong: boolean;
}

/**
 * Sends the call, starting at `first`, until a target answers with something to relay, the
 * route is exhausted, or the deadline or the client says stop. Retried: a refused connection, a
 * reset before the answer, a timeout, and the statuses of retry-policy.ts; a "prompt too long"
 * answer moves to the model's context fallback. Nothing is retried once an answer is handed on:
 * the loop returns before any byte reaches the client. A retried target waits a backoff (or
 * the provider's retry-after, when short enough); a fresh one is tried at once.
 */
export async function sendRouted(route: AttemptRoute, first: Target, input: CallInput, connectCheck: ConnectCheck, trace: CallTrace): Promise<Delivered> {
  let target = first;
  for (;;) {
    route.cursor.started(target);
    route.attempts.begin(target);
    route.onAttempt(target);
    const remaining = Math.max(1, route.deadlineAt - performance.now());
    const sent: Sent = await sendUpstream(target.provider, input, { body: route.bodyFor(target)!, model: target.upstreamModel, streams: route.streams }, connectCheck, trace, {
      connectMs: Math.min(target.connectTimeoutMs, remaining),
      firstByteMs: Math.min(target.firstByteTimeoutMs, remaining),
    });
    // A timeout that ran into the deadline is the call's end (timers may fire a little early: 2 ms of slack).
    if ("failure" in sent && sent.failure.outcome === "timeout" && performance.now() + 2 >= route.deadlineAt) {
      const error = new RelayError(504, "upstream_timeout", `Provider \`${target.provider.id}\` did not answer within the call's deadline`);
      return { failure: { ...sent.failure, error }, target };
    }
    const { delivered, miss } = "failure" in sent ? failed(sent.failure, target) : await readAnswer(sent.answered, target, route);
    if (miss === undefined) return delivered;
    const next = chooseNext(route, target, miss);
    if (next === undefined) return delivered;
    // A retried answer is never a stream (those are relayed from their first chunk on): its body was read whole.
    if ("answered" in delivered) delivered.answered.release();
    route.attempts.failed(miss.status, miss.code, miss.mayHaveBeenBilled, miss.promptTooLong ? "answered" : "failed");
    if (next.delayMs > 0 && !(await waitUnlessGone(next.delayMs, input.request.signal))) {
      return { failure: { error: new RelayError(499, "client_aborted", "The client closed the request while Renio waited to retry it"), outcome: "client_aborted", mayHaveBeenBilled: false }, target };
    }
    target = next.target;
  }
}

/** An attempt's result, and why it may be retried (undefined: it is the call's answer or final failure). */
interface AttemptResult {
  readonly delivered: Delivered;
  readonly miss?: Miss;
}

/** Renio's own failure after a provider answered (the call may have been billed); `cause` is what was thrown. */
export class FailureAfterAnswer extends Error {
  constructor(override readonly cause: unknown) {
    super(cause instanceof Error ? cause.message : String(cause));
    this.name = "FailureAfterAnswer";
  }
}

/** {@link answered}, stopping the upstream call when Renio fails on the answer. */
async function readAnswer(answer: Answered, target: Target, route: AttemptRoute): Promise<AttemptResult> {
  try {
    return await answered(answer, target, route);
  } catch (error) {
    answer.abort();
    answer.release();
    throw new FailureAfterAnswer(error);
  }
}

/** No answer: retried when the failure is one another try may not meet. */
function failed(failure: UpstreamFailure, target: Target): AttemptResult {
  const delivered = { failure, target };
  if (!retryableFailure(failure.error.code)) return { delivered };
  return { delivered, miss: { status: null, code: failure.error.code, mayHaveBeenBilled: failure.mayHaveBeenBilled, promptTooLong: false } };
}

/**
 * An answer, read before a byte reaches the client: a stream up to its first chunk (after that
 * it is relayed as it comes and never retried), any other body whole. So a connection lost
 * before the first chunk, or while reading a JSON body, is a failure like any other, and a
 * retryable status or a "prompt too long" answer can move the call on.
 */
async function answered(answer: Answered, target: Target, route: AttemptRoute): Promise<AttemptResult> {
  const response = answer.response;
  const lost = (error: unknown): AttemptResult => {
    answer.release();
    // The provider answered: it may have processed (and billed) the call.
    return failed({ ...describeUpstreamFailure(error, answer.cause(), target.provider.id), mayHaveBeenBilled: true }, target);
  };
  if (isEventStream(response)) {
    const reader = response.body!.getReader();
    // A reasoning model may send its head at once and its first chunk minutes later: that wait is a silence like any other.
    const stalled = setTimeout(() => answer.stall(), route.chunkTimeoutMs);
    try {
      const read = await reader.read();
      clearTimeout(stalled);
      return { delivered: { answered: answer, target, head: { reader, first: read.done ? null : read.value } } };
    } catch (error) {
      clearTimeout(stalled);
      return lost(error);
    }
  }
  let bytes: Uint8Array<ArrayBuffer>;
  try {
    bytes = new Uint8Array(await response.arrayBuffer());
  } catch (error) {
    return lost(error);
  }
  const delivered = { answered: answer, target, bytes };
  const promptTooLong = route.cursor.current?.contextFallback !== undefined && saysPromptTooLong(response.status, bytes);
  if (!promptTooLong && !retryableStatus(response.status)) return { delivered };
  return { delivered, miss: { status: response.status, code: `upstream_${response.status}`, mayHaveBeenBilled: false, retryAfterMs: retryAfterMs(response.headers), promptTooLong } };
}

/** Whether an answer is a server-sent event stream (relayed chunk by chunk). */
function isEventStream(response: Response): boolean {
  return response.body !== null && (response.headers.get("content-type") ?? "").startsWith("text/event-stream");
}

/** The next attempt after `miss` on `target`, and how long to wait before it; undefined: stop here. */
function chooseNext(route: AttemptRoute, target: Target, miss: Miss): { target: Target; delayMs: number } | undefined {
  const { cursor } = route;
  const now = route.clock();
  if (miss.promptTooLong) {
    const larger = cursor.current?.contextFallback;
    if (larger === undefined || larger.length === 0) return undefined;
    cursor.switchTo(larger);
  }
  const stage = cursor.current;
  if (stage === undefined) return undefined;
  // A wait longer than the model allows ends the retries on that target.
  if (!miss.promptTooLong && miss.retryAfterMs !== undefined && miss.retryAfterMs > stage.retry.maxRetryAfterMs) cursor.exclude(target);
  for (;;) {
    const next = cursor.next(now);
    if (next === undefined) return undefined;
    if (route.bodyFor(next) === undefined) {
      cursor.exclude(next);
      continue;
    }
    // A strict budget's reservation must still cover what was charged plus this attempt.
    if (!route.attempts.roomFor(next, miss.mayHaveBeenBilled)) return undefined;
    const again = cursor.triedBefore(next);
    const retry = cursor.current!.retry;
    let delayMs = again ? backoffDelayMs(retry, route.attempts.count, route.random) : 0;
    if (next === target && miss.retryAfterMs !== undefined) delayMs = Math.max(delayMs, miss.retryAfterMs);
    if (performance.now() + delayMs >= route.deadlineAt) return undefined;
    return { target: next, delayMs };
  }
}

/** Waits `ms`; false as soon as the client goes away. */
function waitUnlessGone(ms: number, signal: AbortSignal): Promise<boolean> {
  if (signal.aborted) return Promise.resolve(false);
  return new Promise((resolve) => {
    const gone = (): void => {
      clearTimeout(timer);
      resolve(false);
    };
    const timer = setTimeout(() => {
      signal.removeEventListener("abort", gone);
      resolve(true);
    }, ms);
    signal.addEventListener("abort", gone, { once: true });
  });
}
