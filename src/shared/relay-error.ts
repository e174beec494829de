/** Stable machine-readable error codes Renio itself returns. */
export type RelayErrorCode =
  | "invalid_json"
  | "invalid_request"
  | "missing_model"
  | "missing_api_key"
  | "invalid_api_key"
  | "model_not_allowed"
  | "region_not_allowed"
  | "model_not_found"
  | "route_not_found"
  | "method_not_allowed"
  | "request_too_large"
  | "uri_too_long"
  | "max_tokens_too_large"
  | "model_not_priced"
  | "tool_not_bounded"
  | "input_not_bounded"
  | "budget_exceeded"
  | "rate_limit_exceeded"
  | "budget_paused"
  | "budget_not_found"
  | "invalid_end_user"
  | "invalid_tags"
  | "tag_not_allowed"
  | "override_not_found"
  | "team_exists"
  | "team_not_found"
  | "entry_not_found"
  | "budget_exists"
  | "budget_read_only"
  | "upstream_unreachable"
  | "upstream_reset"
  | "upstream_timeout"
  | "targets_cooling_down"
  | "client_aborted"
  | "request_timeout"
  | "store_unavailable"
  | "rate_limit_store_unavailable"
  | "shutting_down"
  | "overloaded"
  | "unauthorized"
  | "forbidden"
  | "csrf_failed"
  | "sign_in_failed"
  | "reload_unavailable"
  | "key_revoked"
  | "key_expired"
  | "key_rotated"
  | "key_not_found"
  | "key_exists"
  | "key_read_only"
  | "idempotency_key_reused"
  | "guardrail_blocked"
  | "guardrail_unavailable"
  | "internal_error";

/**
 * An error Renio reports to the caller. The http layer maps it to the
 * provider-style envelope of the route, in exactly one place.
 * Messages must never contain secrets or stack traces.
 */
export class RelayError extends Error {
  constructor(
    readonly status: number,
    readonly code: RelayErrorCode,
    message: string,
    /** Extra response headers (e.g. budget remaining). */
    readonly headers?: Readonly<Record<string, string>>,
  ) {
    super(message);
    this.name = "RelayError";
  }
}

/** The store could not durably record or charge a request: refuse it (fail closed). */
export class StoreUnavailableError extends RelayError {
  constructor(message = "Renio cannot record this request right now (storage unavailable); it was not sent") {
    super(503, "store_unavailable", message);
    this.name = "StoreUnavailableError";
  }
}
