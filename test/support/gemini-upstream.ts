import { currentRuntime } from "../../src/runtime/current-runtime.ts";
import type { Server } from "../../src/runtime/runtime.ts";

/** One request as the scripted Gemini upstream received it. */
export interface GeminiRequestSeen {
  readonly path: string;
  readonly search: string;
  readonly headers: Headers;
  readonly body: Record<string, unknown>;
}

/** A scripted answer: a JSON body (with a status), SSE `data:` payloads, or raw bytes of a stream. */
export type GeminiAnswer = { status?: number; json: unknown } | { events: unknown[] } | { raw: string };

/** A Gemini API on a loopback port answering with whatever `answer` is set to. */
export interface GeminiUpstream {
  readonly url: string;
  readonly seen: GeminiRequestSeen[];
  answer: GeminiAnswer;
  stop(): Promise<void>;
}

/** Starts the scripted upstream. Streams are framed as Gemini frames them (`data: …` and CRLF CRLF). */
export async function startGeminiUpstream(): Promise<GeminiUpstream> {
  const runtime = await currentRuntime();
  const upstream = {
    url: "",
    seen: [] as GeminiRequestSeen[],
    answer: { json: {} } as GeminiAnswer,
    stop: () => server.stop(),
  };
  const server: Server = await runtime.serve({
    hostname: "127.0.0.1",
    port: 0,
    async fetch(request: Request): Promise<Response> {
      const url = new URL(request.url);
      upstream.seen.push({ path: url.pathname, search: url.search, headers: new Headers(request.headers), body: (await request.json()) as Record<string, unknown> });
      const answer = upstream.answer;
      if ("json" in answer) return Response.json(answer.json, { status: answer.status ?? 200 });
      const text = "events" in answer ? answer.events.map((event) => `data: ${JSON.stringify(event)}\r\n\r\n`).join("") : answer.raw;
      return new Response(text, { headers: { "content-type": "text/event-stream" } });
    },
  });
  upstream.url = `http://127.0.0.1:${server.port}`;
  return upstream;
}

/** A `GenerateContentResponse` (API reference shape) with the given parts, finish reason and usage. */
export function geminiResponse(parts: unknown[], finishReason: string | undefined, usageMetadata?: Record<string, number>): Record<string, unknown> {
  const candidate: Record<string, unknown> = { content: { role: "model", parts }, index: 0 };
  if (finishReason !== undefined) candidate["finishReason"] = finishReason;
  return { candidates: [candidate], ...(usageMetadata ? { usageMetadata } : {}), modelVersion: "gemini-2.5-flash", responseId: "resp-1" };
}
