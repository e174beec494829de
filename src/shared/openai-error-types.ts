/** OpenAI's `error.type` by HTTP status (others: `api_error`): used by Renio's own errors and by providers translating into the OpenAI envelope. */
export const OPENAI_ERROR_TYPES: Readonly<Record<number, string>> = {
  400: "invalid_request_error",
  401: "authentication_error",
  403: "permission_error",
  404: "not_found_error",
  405: "invalid_request_error",
  413: "invalid_request_error",
  414: "invalid_request_error",
  429: "rate_limit_error",
};
