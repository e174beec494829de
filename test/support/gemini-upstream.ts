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

/** A Gemini API on a loopback port answering with whatever `answer` is set to (or returns for the request). */
export interface GeminiUpstream {
  readonly url: string;
  readonly seen: GeminiRequestSeen[];
  answer: GeminiAnswer | ((seen: GeminiRequestSeen) => GeminiAnswer | Promise<GeminiAnswer>);
  stop(): Promise<void>;
}

/** Starts the scripted upstream. Streams are framed as Gemini frames them (`data: …` and CRLF CRLF). */
export async function startGeminiUpstream(): Promise<GeminiUpstream> {
  const runtime = await currentRuntime();
  const upstream = {
    url: "",
    seen: [] as GeminiRequestSeen[],
    answer: { json: {} } as GeminiUpstream["answer"],
    stop: () => server.stop(),
  };
  const server: Server = await runtime.serve({
    hostname: "127.0.0.1",
    port: 0,
    async fetch(request: Request): Promise<Response> {
      const url = new URL(request.url);
      const seen = { path: url.pathname, search: url.search, headers: new Headers(request.headers), body: (await request.json()) as Record<string, unknown> };
      upstream.seen.push(seen);
      const answer = typeof upstream.answer === "function" ? await upstream.answer(seen) : upstream.answer;
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

/** Usage the scripted answers report (Gemini's field names; thoughts are billed as output). */
export const GEMINI_USAGE = { promptTokenCount: 40, cachedContentTokenCount: 16, candidatesTokenCount: 7, thoughtsTokenCount: 5, totalTokenCount: 52 };
/** The function call's arguments the scripted answers carry. */
export const GEMINI_TOOL_ARGS = { city: "Lyon" };
/** The text they answer with ("Sa" + "lut" when streamed). */
export const GEMINI_TEXT = "Salut";

type GeminiUsage = Record<string, number>;

/** Gemini's answer when the quota is exhausted. */
export const GEMINI_QUOTA_ERROR = { error: { code: 429, message: "Resource has been exhausted (e.g. check quota).", status: "RESOURCE_EXHAUSTED" } };

/**
 * Answers a request as Gemini would, reporting `usageOf(request)` ("please fail" in the body:
 * a 429 RESOURCE_EXHAUSTED; "cut me": a stream cut mid-event): with `functionDeclarations`,
 * a `functionCall` of the first one (Gemini sends a call whole, in one event); else "Salut",
 * streamed in two events (usage growing, the full usage on the last) on `streamGenerateContent`.
 */
export function geminiAnswering(usageOf: (seen: GeminiRequestSeen) => GeminiUsage): (seen: GeminiRequestSeen) => GeminiAnswer {
  return (seen) => {
    if (JSON.stringify(seen.body).includes("please fail")) return { status: 429, json: GEMINI_QUOTA_ERROR };
    // The provider's stream cut in the middle of an event.
    if (JSON.stringify(seen.body).includes("cut me")) return { raw: `data: ${JSON.stringify(geminiResponse([{ text: "Hi" }], undefined))}\r\n\r\ndata: {"candidates":[{"content":{"parts":[{"text":"th` };
    const usage = usageOf(seen);
    const declarations = (seen.body["tools"] as { functionDeclarations?: { name: string }[] }[] | undefined)?.[0]?.functionDeclarations;
    const tool = declarations?.[0]?.name;
    const stream = seen.path.endsWith(":streamGenerateContent");
    if (tool !== undefined) {
      const answer = geminiResponse([{ functionCall: { name: tool, args: GEMINI_TOOL_ARGS } }], "STOP", usage);
      return stream ? { events: [answer] } : { json: answer };
    }
    if (!stream) return { json: geminiResponse([{ text: GEMINI_TEXT }], "STOP", usage) };
    const prompt = usage["promptTokenCount"] ?? 0;
    return {
      events: [
        geminiResponse([{ text: GEMINI_TEXT.slice(0, 2) }], undefined, { promptTokenCount: prompt, candidatesTokenCount: 1, totalTokenCount: prompt + 1 }),
        geminiResponse([{ text: GEMINI_TEXT.slice(2) }], "STOP", usage),
      ],
    };
  };
}

/** {@link geminiAnswering} with `GEMINI_USAGE`. */
export const scriptedGeminiAnswer = geminiAnswering(() => GEMINI_USAGE);
