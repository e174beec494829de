import { headerPathOf, upstreamQuery, upstreamRequestHeaders, type HeaderPath } from "../providers/header-policy.ts";
import type { Provider, UpstreamCall } from "../providers/provider.ts";
import { RelayError } from "../shared/relay-error.ts";
import type { CallInput } from "../shared/call-context.ts";
import type { CallTrace } from "../observe/call-trace.ts";
import type { ConnectCheck } from "./upstream-connect.ts";
import { describeUpstreamFailure, type AbortCause, type UpstreamFailure } from "./upstream-failure.ts";

/** A call the provider answered (status and headers received); its body is still to be read. */
export interface Answered {
  readonly response: Response;
  /** performance.now() when the call was sent. */
  readonly sentAt: number;
  /** Why Renio stopped the upstream call, if it did (`client`: the client went away). */
  cause(): AbortCause | undefined;
  /** Stops the upstream call (Renio's own failure). */
  abort(): void;
  /** Stops the upstream call because its answer went silent for too long (cause `timeout`). */
  stall(): void;
  /** Stops watching the client; call once, when the call has ended. */
  release(): void;
}

/** How long one attempt may take to connect and to get its first byte (ms). */
export interface AttemptTimeouts {
  readonly connectMs: number;
  readonly firstByteMs: number;
}

/** The result of sending: answered, or a failure to get an answer (already released). */
export type Sent = { readonly answered: Answered } | { readonly failure: UpstreamFailure };

/**
 * Sends a call (`outgoing`: its body for the upstream model, and whether it streams) to its provider: waits for the connect check while the provider is cold, arms
 * the first-byte timer, stops the upstream call when the client goes away, and maps every way
 * of not getting an answer to an UpstreamFailure. The request carries the trace's context. Throws only on Renio's own failures, before
 * anything was sent.
 */
export async function sendUpstream(
  provider: Provider,
  input: CallInput,
  outgoing: Pick<UpstreamCall, "body" | "model" | "streams">,
  connectCheck: ConnectCheck,
  trace: CallTrace,
  timeouts: AttemptTimeouts = { connectMs: provider.connectTimeoutMs, firstByteMs: provider.firstByteTimeoutMs },
): Promise<Sent> {
  const controller = new AbortController();
  let cause: AbortCause | undefined;
  const abortFor = (why: AbortCause) => {
    cause ??= why;
    controller.abort();
  };
  const onClientAbort = () => abortFor("client");
  const clientSignal = input.request.signal;
  clientSignal.addEventListener("abort", onClientAbort, { once: true });
  let timer: ReturnType<typeof setTimeout> | undefined;
  const release = () => {
    clearTimeout(timer);
    clientSignal.removeEventListener("abort", onClientAbort);
  };
  const failed = (failure: UpstreamFailure): Sent => (release(), { failure });
  let headers: Headers;
  let path: HeaderPath;
  try {
    // The attempt (its CLIENT span) begins before the connection check: a refused connection is a failed attempt.
    const traceHeaders = trace.attempt();
    const connecting = connectCheck.before(provider, timeouts.connectMs);
    if (connecting !== undefined) {
      try {
        await connecting;
      } catch (error) {
        if (!(error instanceof RelayError)) throw error;
        return failed({ error, outcome: error.code === "upstream_timeout" ? "timeout" : "upstream_error", mayHaveBeenBilled: false });
      }
    }
    path = headerPathOf(input.route.wire, provider.translated === true);
    headers = upstreamRequestHeaders(input.request.headers, path);
    for (const [name, value] of traceHeaders) headers.set(name, value);
  } catch (error) {
    release();
    throw error;
  }
  timer = setTimeout(abortFor, timeouts.firstByteMs, "timeout");
  const sentAt = performance.now();
  let response: Response;
  try {
    const query = upstreamQuery(input.request.url, path);
    response = await provider.send({ route: input.route, body: outgoing.body, model: outgoing.model, streams: outgoing.streams, headers, query, requestId: input.id, signal: controller.signal });
  } catch (error) {
    return failed(describeUpstreamFailure(error, cause, provider.id));
  }
  clearTimeout(timer);
  connectCheck.answered(provider.id);
  return { answered: { response, sentAt, cause: () => cause, abort: () => controller.abort(), stall: () => abortFor("timeout"), release } };
}
