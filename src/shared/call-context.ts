import type { JournalStart } from "./journal-records.ts";
import type { RouteSpec } from "./route-spec.ts";

/** One model call as it moves through the relay. */
export interface CallInput {
  readonly route: RouteSpec;
  readonly request: Request;
  readonly clientAddress: string;
  /** The journal entry id, also sent upstream as x-request-id. */
  readonly id: string;
  /** The caller's x-request-id (or `id`), returned on the response. */
  readonly requestId: string;
  /** performance.now() when the request arrived. */
  readonly startedAt: number;
  /** Epoch ms when the request arrived. */
  readonly receivedAt: number;
  /** Takes the call's connection out of the server's idle timeout; the function returned puts it back (see ConnectionInfo.untimed). */
  readonly untimed?: () => () => void;
}

/** A fresh journal entry for a call about which nothing is known yet. */
export function blankStart(input: CallInput): JournalStart {
  return {
    id: input.id,
    receivedAt: input.receivedAt,
    requestId: input.requestId === input.id ? null : input.requestId,
    keyId: null,
    project: null,
    route: input.route.path,
    model: null,
    provider: null,
    upstreamModel: null,
    region: null,
    stream: false,
    requestBytes: 0,
    clientAddress: input.clientAddress,
    requestBody: null,
  };
}
