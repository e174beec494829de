import { RelayError } from "../shared/relay-error.ts";
import type { Outcome } from "../shared/journal-records.ts";

/** Why an upstream exchange was stopped by Renio. */
export type AbortCause = "client" | "timeout";

/** A failure to get a response from the provider, as the caller and the journal see it. */
export interface UpstreamFailure {
  readonly error: RelayError;
  readonly outcome: Outcome;
  /** Whether the provider may have processed (and billed) the call. */
  readonly mayHaveBeenBilled: boolean;
}

/** Maps a rejected upstream fetch to the error the caller gets. Never includes upstream secrets. */
export function describeUpstreamFailure(error: unknown, cause: AbortCause | undefined, providerId: string): UpstreamFailure {
  if (cause === "timeout") {
    return {
      error: new RelayError(504, "upstream_timeout", `Provider \`${providerId}\` did not answer in time`),
      outcome: "timeout",
      mayHaveBeenBilled: true,
    };
  }
  if (cause === "client") {
    return {
      error: new RelayError(499, "client_aborted", "The client closed the request before the provider answered"),
      outcome: "client_aborted",
      mayHaveBeenBilled: true,
    };
  }
  const code = String((error as { code?: unknown })?.code ?? "");
  // Bun reports a code; Deno says "fetch failed" with the detail in `cause`.
  const detail = `${code} ${messageOf(error)} ${messageOf((error as { cause?: unknown })?.cause)}`;
  const refused = /ConnectionRefused|Connection refused|tcp connect error|dns error|ECONNREFUSED|ENOTFOUND|FailedToOpenSocket|EHOSTUNREACH|ENETUNREACH/i.test(detail);
  return refused
    ? {
        error: new RelayError(502, "upstream_unreachable", `Provider \`${providerId}\` is unreachable`),
        outcome: "upstream_error",
        mayHaveBeenBilled: false,
      }
    : {
        error: new RelayError(502, "upstream_reset", `Provider \`${providerId}\` closed the connection before answering`),
        outcome: "upstream_error",
        mayHaveBeenBilled: true,
      };
}

function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : "";
}
