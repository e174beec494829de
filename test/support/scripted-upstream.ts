import { currentRuntime } from "../../src/runtime/current-runtime.ts";
import type { Server } from "../../src/runtime/runtime.ts";

/** An upstream on a loopback port that bills as the real provider would. */
export interface ScriptedUpstream {
  readonly url: string;
  /** Every request body received, in order. */
  readonly bodies: Record<string, unknown>[];
  /** Every request's headers, in order. */
  readonly headers: Headers[];
  /** Every request's path, in order. */
  readonly paths: string[];
  /** Every request's query string (`""` or `?…`), in order. */
  readonly queries: string[];
  stop(): Promise<void>;
}

/** A request as the scripted upstream received it. */
export interface ReceivedRequest {
  path: string;
  body: Record<string, unknown>;
  /** The body's size in bytes (the most input tokens a provider can bill for it). */
  bytes: number;
}

/** A scripted answer: a JSON body, or SSE events (`event:` / `data:` lines, without the blank line); `headers` added to the response. */
export type ScriptedAnswer = ({ json: unknown; status?: number } | { sse: string[] }) & { headers?: Record<string, string> };

/** Starts an upstream that answers every request with `answer(request)`. */
export async function startAnsweringUpstream(answer: (request: ReceivedRequest) => ScriptedAnswer | Promise<ScriptedAnswer>): Promise<ScriptedUpstream> {
  const runtime = await currentRuntime();
  const bodies: Record<string, unknown>[] = [];
  const headers: Headers[] = [];
  const paths: string[] = [];
  const queries: string[] = [];
  const server: Server = await runtime.serve({
    hostname: "127.0.0.1",
    port: 0,
    async fetch(request: Request): Promise<Response> {
      const bytes = new Uint8Array(await request.arrayBuffer());
      const body = JSON.parse(new TextDecoder().decode(bytes)) as Record<string, unknown>;
      bodies.push(body);
      headers.push(request.headers);
      const url = new URL(request.url);
      paths.push(url.pathname);
      queries.push(url.search);
      const scripted = await answer({ path: url.pathname, body, bytes: bytes.byteLength });
      if ("json" in scripted) return new Response(JSON.stringify(scripted.json), { status: scripted.status ?? 200, headers: { "content-type": "application/json", ...scripted.headers } });
      return new Response(scripted.sse.map((event) => `${event}\n\n`).join(""), { headers: { "content-type": "text/event-stream", ...scripted.headers } });
    },
  });
  return { url: `http://127.0.0.1:${server.port}`, bodies, headers, paths, queries, stop: () => server.stop() };
}

/**
 * Starts a chat-completions upstream on a loopback port that bills like OpenAI: each of the
 * `n` choices produces the request's output limit (`max_completion_tokens` or `max_tokens`),
 * or `unlimitedOutput` tokens when the request sets none; usage reports their sum. A body
 * referencing an `http(s)` URL bills `referencedInput` input tokens (what the fetched image or
 * file costs), else 10.
 */
export function startScriptedUpstream(unlimitedOutput: number, referencedInput: number): Promise<ScriptedUpstream> {
  return startAnsweringUpstream(({ body }) => {
    const input = /"url":"https?:/.test(JSON.stringify(body)) ? referencedInput : 10;
    const limit = body["max_completion_tokens"] ?? body["max_tokens"];
    const perChoice = typeof limit === "number" ? limit : unlimitedOutput;
    const n = typeof body["n"] === "number" ? body["n"] : 1;
    const choices = Array.from({ length: n }, (_, index) => ({ index, message: { role: "assistant", content: "ok" }, finish_reason: "length" }));
    const usage = { prompt_tokens: input, completion_tokens: perChoice * n, total_tokens: input + perChoice * n };
    return { json: { id: "chatcmpl-scripted", object: "chat.completion", created: 0, model: body["model"], choices, usage } };
  });
}
