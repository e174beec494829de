import { parseSseEvent } from "../../src/usage/sse-event-fields.ts";

/** Helpers for the mock's own tests: build requests and read SSE bodies. */

/** One parsed SSE event. */
export interface SseEvent {
  readonly event: string | undefined;
  readonly data: string;
}

/** A POST request to the mock with a JSON body and optional headers. */
export function postJson(path: string, body: unknown, headers: Record<string, string> = {}, signal?: AbortSignal): Request {
  return new Request(`http://mock.test${path}`, {
    method: "POST",
    body: JSON.stringify(body),
    headers: { "content-type": "application/json", ...headers },
    ...(signal ? { signal } : {}),
  });
}

/** Splits an SSE body into events, each read by Renio's one SSE event parser. */
export function parseSse(text: string): SseEvent[] {
  const events: SseEvent[] = [];
  for (const block of text.split("\n\n")) {
    if (block.trim() === "") continue;
    const { event, data } = parseSseEvent(block);
    events.push({ event: event === "" ? undefined : event, data });
  }
  return events;
}

/** The JSON payloads of an SSE body, skipping `[DONE]`. */
export function sseJson(text: string): Array<Record<string, unknown>> {
  return parseSse(text)
    .filter((e) => e.data !== "[DONE]")
    .map((e) => JSON.parse(e.data) as Record<string, unknown>);
}

/** Polls `check` every few milliseconds until it holds or `timeoutMs` passes; returns whether it held. */
export async function waitFor(check: () => boolean | Promise<boolean>, timeoutMs = 2000): Promise<boolean> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (await check()) return true;
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
  return check();
}
