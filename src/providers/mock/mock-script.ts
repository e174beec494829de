import type { WireFormat } from "../../shared/usage.ts";
import type { MockFaults } from "./mock-faults.ts";

/**
 * A fault script (config `providers.<id>.faults` of a mock, or `POST /_mock/script`): which of
 * the mock's calls fail, and how. Calls are numbered from 0 as they arrive. A call fails when
 * it is one of the first `failFirst`, or one of the `failPercent` % spread evenly over the
 * calls (call n fails when ⌊(n+1)·p/100⌋ > ⌊n·p/100⌋: deterministic, no randomness); a script
 * with neither fails every call. A failing call waits `delayMs` (default: the latency), then
 * drops the connection (`reset`), answers the context-window error (`promptTooLong`), cuts its
 * stream (`cutAfterChunks`), or answers `status` (default 503); `retryAfter` / `retryAfterMs`
 * go on its answer.
 */
export interface MockScript {
  readonly failFirst?: number;
  readonly failPercent?: number;
  readonly status?: number;
  readonly reset?: boolean;
  readonly promptTooLong?: boolean;
  readonly cutAfterChunks?: number;
  readonly delayMs?: number;
  readonly retryAfter?: number;
  readonly retryAfterMs?: number;
}

/** Whether call number `n` (from 0) fails under `script`. */
export function scriptFails(script: MockScript, n: number): boolean {
  const { failFirst, failPercent } = script;
  if (failFirst === undefined && failPercent === undefined) return true;
  if (failFirst !== undefined && n < failFirst) return true;
  return failPercent !== undefined && Math.floor(((n + 1) * failPercent) / 100) > Math.floor((n * failPercent) / 100);
}

/** The faults a failing call of `script` gets (a status unless it resets, is too long or cuts). */
export function scriptFaults(script: MockScript): MockFaults {
  const faults: MockFaults = {};
  if (script.delayMs !== undefined) faults.firstByteDelayMs = script.delayMs;
  if (script.reset) faults.reset = true;
  else if (script.cutAfterChunks !== undefined) faults.cutAfterChunks = script.cutAfterChunks;
  else if (!script.promptTooLong) faults.status = script.status ?? 503;
  return faults;
}

/** Headers a failing answer of `script` carries (`retry-after`, `retry-after-ms`). */
export function scriptHeaders(script: MockScript): Record<string, string> {
  const headers: Record<string, string> = {};
  if (script.retryAfter !== undefined) headers["retry-after"] = String(script.retryAfter);
  if (script.retryAfterMs !== undefined) headers["retry-after-ms"] = String(script.retryAfterMs);
  return headers;
}

/** The provider's answer that a prompt does not fit the context window, as OpenAI and Anthropic send it. */
export function promptTooLongResponse(wire: WireFormat): Response {
  const body =
    wire === "anthropic"
      ? { type: "error", error: { type: "invalid_request_error", message: "prompt is too long: 250000 tokens > 200000 maximum" } }
      : { error: { message: "This model's maximum context length is 8192 tokens. However, your messages resulted in 250000 tokens.", type: "invalid_request_error", param: "messages", code: "context_length_exceeded" } };
  return new Response(JSON.stringify(body), { status: 400, headers: { "content-type": "application/json" } });
}
