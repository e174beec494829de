import type { Outcome } from "../shared/journal-records.ts";
import type { RelayError } from "../shared/relay-error.ts";
import type { Usage } from "../shared/usage.ts";

/** What is known of a call whose answer was (at least in part) relayed to the client. */
interface Relayed {
  readonly status: number;
  /** Usage the provider reported (for a stream that broke off: what was seen before). */
  readonly usage: Usage | null;
  /**
   * Whether `usage` is the provider's final count: a JSON body's, or a stream's that ended
   * cleanly or carried its final usage event. Otherwise it is at best a lower bound.
   */
  readonly usageFinal: boolean;
  readonly mayHaveBeenBilled: boolean;
  /** performance.now() of the first body byte handed to the client, if any. */
  readonly firstByteAt: number | null;
  /** ms from sending upstream to the end of the upstream body. */
  readonly upstreamMs: number | null;
  /** Response body (JSON responses only), for `journal.bodies: "full"`. */
  readonly responseBody: Uint8Array | null;
}

/**
 * How a forwarded call ended: produced exactly once per call by the exchange, read by the
 * settlement.
 * - completed: the provider's answer (any status) was relayed to its end;
 * - cut: the provider's stream broke off;
 * - stalled: the stream went silent (or its client took nothing) for routing.chunkTimeoutMs, and Renio ended it;
 * - cancelled: the client went away while the stream was relayed;
 * - failed: no answer was relayed (timeout, unreachable, reset, the client gone before the
 *   provider answered, or Renio's own failure: outcome `relay_error`).
 */
export type CallEnd =
  | (Relayed & { readonly kind: "completed" | "cut" | "stalled" | "cancelled" })
  | {
      readonly kind: "failed";
      readonly outcome: Outcome;
      readonly error: RelayError;
      readonly mayHaveBeenBilled: boolean;
      readonly firstByteAt: number | null;
      readonly upstreamMs: number | null;
    };

/** The journal's outcome, status and error code of an end. */
export function outcomeOf(end: CallEnd): { outcome: Outcome; status: number; errorCode: string | null } {
  switch (end.kind) {
    case "completed": {
      const ok = end.status >= 200 && end.status < 300;
      return { outcome: ok ? "ok" : "upstream_error", status: end.status, errorCode: ok ? null : `upstream_${end.status}` };
    }
    case "cut":
      return { outcome: "upstream_error", status: end.status, errorCode: "upstream_stream_cut" };
    case "stalled":
      return { outcome: "timeout", status: end.status, errorCode: "upstream_stream_stalled" };
    case "cancelled":
      return { outcome: "client_aborted", status: end.status, errorCode: "client_aborted" };
    case "failed":
      return { outcome: end.outcome, status: end.error.status, errorCode: end.error.code };
  }
}
