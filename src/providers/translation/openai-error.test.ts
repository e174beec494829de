import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { openAiError } from "./openai-error.ts";

/** The status, content type and body of one envelope. */
async function read(response: Response): Promise<[number, string | null, unknown]> {
  return [response.status, response.headers.get("content-type"), await response.json()];
}

describe("the OpenAI error envelope of a translated provider", () => {
  test("type by status: the table's, server_error for 5xx, invalid_request_error for the other 4xx", async () => {
    const types = await Promise.all([400, 401, 403, 404, 408, 413, 429, 500, 502, 503].map(async (status) => ((await openAiError(status, "m").json()) as { error: { type: string } }).error.type));
    assert.deepEqual(types, [
      "invalid_request_error", "authentication_error", "permission_error", "not_found_error", "invalid_request_error",
      "invalid_request_error", "rate_limit_error", "server_error", "server_error", "server_error",
    ]);
  });

  test("code and param as given (null when absent); the provider's credential never in the message", async () => {
    assert.deepEqual(await read(openAiError(400, "`n` has no equivalent", { code: "unsupported_parameter", param: "n" })), [
      400, "application/json", { error: { message: "`n` has no equivalent", type: "invalid_request_error", param: "n", code: "unsupported_parameter" } },
    ]);
    assert.deepEqual(await read(openAiError(502, "key AIza-secret-1 rejected, AIza-secret-1 again", { code: "upstream_auth_failed", secret: "AIza-secret-1" })), [
      502, "application/json", { error: { message: "key [redacted] rejected, [redacted] again", type: "server_error", param: null, code: "upstream_auth_failed" } },
    ]);
  });
});
