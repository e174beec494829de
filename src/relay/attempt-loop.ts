import { RelayError } from "../shared/relay-error.ts";
import type { CallAttempts } from "./call-attempts.ts";
import type { CallInput } from "./call-context.ts";
import type { CallTrace } from "./call-trace.ts";
import type { RouteCursor, Target } from "./route-plan.ts";
import { backoffDelayMs, CONTEXT_CHECK_BYTES, retryableFailure, retryableStatus, retryAfterMs, saysPromptTooLong } from "./retry-policy.ts";
import type { ConnectCheck } from "./upstream-connect.ts";
import type { UpstreamFailure } from "./upstream-failure.ts";
import { sendUpstream, type Answered, type Sent } from "./upstream-send.ts";

/** What the attempt loop needs of a call's route. */
export interface AttemptRoute {
  readonly cursor: RouteCursor;
  readonly attempts: CallAttempts;
  /** The body for `target` (model and output limit rewritten for it); undefined when the call cannot go there. */
  readonly bodyFor: (target: Target) => Uint8Array<ArrayBuffer> | undefined;
  /** performance.now() by which an answer must have started (the call's deadline). */
  readonly deadlineAt: number;
  /** Epoch ms (target health). */
  readonly clock: () => number;
  readonly random: () => number;
}

/** The answer to relay (its error body already read when the context check needed it), or why there is none. */
export type Delivered =
  | { readonly answered: Answered; readonly target: Target; readonly bytes?: Uint8Array<ArrayBuffer> }
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
    const remaining = Math.max(1, route.deadlineAt - performance.now());
    const sent: Sent = await sendUpstream(target.provider, input, route.bodyFor(target)!, connectCheck, trace, {
      connectMs: Math.min(target.connectTimeoutMs, remaining),
      firstByteMs: Math.min(target.firstByteTimeoutMs, remaining),
    });
    let miss: Miss;
    let bytes: Uint8Array<ArrayBuffer> | undefined;
    if ("failure" in sent) {
      const { failure } = sent;
      if (!retryableFailure(failure.error.code)) return { failure, target };
      miss = { status: null, code: failure.error.code, mayHaveBeenBilled: failure.mayHaveBeenBilled, promptTooLong: false };
    } else {
      const response = sent.answered.response;
      const contextFallback = route.cursor.current?.contextFallback;
      if (contextFallback !== undefined && (response.status === 400 || response.status === 413)) {
        bytes = await readErrorBody(sent.answered);
        if (bytes === undefined) return { failure: unreadable(target), target };
      }
      const promptTooLong = bytes !== undefined && saysPromptTooLong(response.status, bytes);
      if (!promptTooLong && !retryableStatus(response.status)) return { answered: sent.answered, target, bytes };
      miss = { status: response.status, code: `upstream_${response.status}`, mayHaveBeenBilled: false, retryAfterMs: retryAfterMs(response.headers), promptTooLong };
    }
    const next = chooseNext(route, target, miss);
    if (next === undefined) return "failure" in sent ? { failure: sent.failure, target } : { answered: sent.answered, target, bytes };
    if ("answered" in sent) await discard(sent.answered, bytes !== undefined);
    route.attempts.failed(miss.status, miss.code, miss.mayHaveBeenBilled, miss.promptTooLong ? "answered" : "failed");
    if (next.delayMs > 0 && !(await waitUnlessGone(next.delayMs, input.request.signal))) {
      return { failure: { error: new RelayError(499, "client_aborted", "The client closed the request while Renio waited to retry it"), outcome: "client_aborted", mayHaveBeenBilled: false }, target };
    }
    target = next.target;
  }
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
  if (miss.retryAfterMs !== undefined && miss.retryAfterMs > stage.retry.maxRetryAfterMs) cursor.exclude(target);
  for (;;) {
    const next = cursor.next(now);
    if (next === undefined) return undefined;
    if (route.bodyFor(next) === undefined) {
      cursor.exclude(next);
      continue;
    }
    // A strict budget's reservation must still cover what was charged plus this attempt.
    if (miss.mayHaveBeenBilled && !route.attempts.roomFor(next)) return undefined;
    const again = cursor.triedBefore(next);
    const retry = cursor.current!.retry;
    let delayMs = again ? backoffDelayMs(retry, route.attempts.count, route.random) : 0;
    if (next === target && miss.retryAfterMs !== undefined) delayMs = Math.max(delayMs, miss.retryAfterMs);
    if (performance.now() + delayMs >= route.deadlineAt) return undefined;
    return { target: next, delayMs };
  }
}

/** Reads the first bytes of an error answer (it is small); undefined when the connection fails meanwhile. */
async function readErrorBody(answered: Answered): Promise<Uint8Array<ArrayBuffer> | undefined> {
  try {
    const bytes = new Uint8Array(await answered.response.arrayBuffer());
    return bytes.byteLength > CONTEXT_CHECK_BYTES * 16 ? bytes.subarray(0, CONTEXT_CHECK_BYTES * 16) : bytes;
  } catch {
    answered.release();
    return undefined;
  }
}

function unreadable(target: Target): UpstreamFailure {
  return { error: new RelayError(502, "upstream_reset", `Provider \`${target.provider.id}\` closed the connection before answering`), outcome: "upstream_error", mayHaveBeenBilled: false };
}

/** Drops an answer that is not relayed (its body unread, or already read) and stops watching the client for it. */
async function discard(answered: Answered, read: boolean): Promise<void> {
  if (!read) await answered.response.body?.cancel().catch(() => undefined);
  answered.release();
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
