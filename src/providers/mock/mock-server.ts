import type { WireFormat } from "../../shared/usage.ts";
import { anthropicCountTokens, anthropicMessage } from "./mock-anthropic.ts";
import type { MockCall, MockRoute } from "./mock-call.ts";
import { mockErrorResponse, MockResetError } from "./mock-errors.ts";
import { FAULT_HEADER, mergeFaults, MockFaultSyntaxError, parseFaultHeader, type MockFaults } from "./mock-faults.ts";
import { chatCompletion, embeddings, modelList, textCompletion } from "./mock-openai.ts";
import { openaiResponse } from "./mock-responses.ts";
import { MockStatsRecorder, type MockStats } from "./mock-stats.ts";
import { promptTooLongResponse, scriptFails, scriptFaults, scriptHeaders, type MockScript } from "./mock-script.ts";
import { mockFrameStream } from "./mock-stream.ts";
import { estimateInputTokens, outputTokensFor } from "./mock-text.ts";
import type { MockAnswer } from "../../config/mock-schema.ts";

export type { MockFaults } from "./mock-faults.ts";
export type { MockStats } from "./mock-stats.ts";
export type { MockScript } from "./mock-script.ts";

/** Timing, shape and faults of a mock provider. */
export interface MockOptions {
  /** Wait before the response (headers and first byte). */
  latencyMs: number;
  /** Wait between stream chunks. */
  chunkIntervalMs: number;
  /** Content deltas per stream. */
  chunks: number;
  /** What the mock answers (mock-text.ts); default `fill`, exactly the request's output limit. */
  answer?: MockAnswer;
  /** Faults applied to every call (the `x-mock-fault` header overrides them per call). */
  faults?: MockFaults;
  /** Which calls fail and how (mock-script.ts); `POST /_mock/script` replaces it. */
  script?: MockScript;
}

/** A mock OpenAI + Anthropic provider as a web-standard handler. */
export interface Mock {
  /** Answers one request; rejects with a TypeError for the `reset` fault and with the abort reason on abort. */
  fetch(request: Request): Promise<Response>;
  stats(): MockStats;
  resetStats(): void;
}

interface RouteEntry {
  readonly method: "GET" | "POST";
  readonly wire: WireFormat;
  readonly build: MockRoute;
}

const ROUTES = new Map<string, RouteEntry>([
  ["/v1/chat/completions", { method: "POST", wire: "openai", build: chatCompletion }],
  ["/v1/completions", { method: "POST", wire: "openai", build: textCompletion }],
  ["/v1/embeddings", { method: "POST", wire: "openai", build: embeddings }],
  ["/v1/responses", { method: "POST", wire: "openai", build: openaiResponse }],
  ["/v1/models", { method: "GET", wire: "openai", build: () => ({ kind: "json", body: modelList() }) }],
  ["/v1/messages", { method: "POST", wire: "anthropic", build: anthropicMessage }],
  ["/v1/messages/count_tokens", { method: "POST", wire: "anthropic", build: anthropicCountTokens }],
]);

const JSON_HEADERS = { "content-type": "application/json" } as const;
const SSE_HEADERS = { "content-type": "text/event-stream; charset=utf-8", "cache-control": "no-cache" } as const;
const decoder = new TextDecoder();

/** Creates a mock provider. Paths are `/v1/...`; `/_mock/stats` and `/_mock/reset` observe it, `POST /_mock/script` sets its fault script. */
export function createMock(options: MockOptions): Mock {
  const stats = new MockStatsRecorder();
  const idPrefix = Math.floor(Math.random() * 36 ** 4).toString(36).padStart(4, "0");
  let sequence = 0;
  let script = options.script;
  const answer = options.answer ?? "fill";
  /** Model calls the script has seen (its call numbers). */
  let scripted = 0;

  async function handle(request: Request): Promise<Response> {
    const path = pathOf(request.url);
    if (path.startsWith("/_mock/")) return control(request, path);
    const route = ROUTES.get(path);
    const wire: WireFormat = path.startsWith("/v1/messages") ? "anthropic" : "openai";
    stats.receive(request.headers.get("x-request-id") ?? "", wire);
    if (!route) return done(mockErrorResponse(wire, 404, `mock: no route for ${request.method} ${path}`));
    if (request.method !== route.method) {
      const response = mockErrorResponse(wire, 405, `mock: ${path} accepts ${route.method}, not ${request.method}`);
      response.headers.set("allow", route.method);
      return done(response);
    }
    let faults: MockFaults;
    // The script decides this call's fate (failing calls get its faults and headers).
    const failing = script !== undefined && route.method === "POST" && scriptFails(script, scripted++) ? script : undefined;
    const serverFaults = failing === undefined ? options.faults : mergeFaults(options.faults, scriptFaults(failing));
    try {
      const header = request.headers.get(FAULT_HEADER);
      faults = header === null ? (serverFaults ?? {}) : mergeFaults(serverFaults, parseFaultHeader(header));
    } catch (error) {
      if (error instanceof MockFaultSyntaxError) return done(mockErrorResponse(wire, 400, `mock: ${error.message}`));
      throw error;
    }

    let body: Record<string, unknown> = {};
    let byteLength = 0;
    if (route.method === "POST") {
      const bytes = await guard(request, request.arrayBuffer());
      byteLength = bytes.byteLength;
      const parsed = parseObject(bytes);
      if (!parsed) return done(mockErrorResponse(wire, 400, "mock: the request body is not a JSON object"));
      body = parsed;
    }

    const delayMs = faults.firstByteDelayMs ?? options.latencyMs;
    if (delayMs > 0) await guard(request, abortableDelay(delayMs, request.signal));
    if (request.signal.aborted) return aborted(request);
    if (faults.reset) throw new MockResetError();
    if (faults.status !== undefined || failing?.promptTooLong) {
      const response = faults.status !== undefined ? mockErrorResponse(wire, faults.status, `mock: injected fault (status ${faults.status})`) : promptTooLongResponse(wire);
      for (const [name, value] of Object.entries(failing === undefined ? {} : scriptHeaders(failing))) response.headers.set(name, value);
      return done(response);
    }

    const model = body["model"];
    const call: MockCall = {
      body,
      inputTokens: estimateInputTokens(byteLength),
      outputTokens: outputTokensFor(body, answer),
      answer,
      chunks: options.chunks,
      modelJson: JSON.stringify(typeof model === "string" ? model : "mock-model"),
      id: `${idPrefix}${(sequence++).toString(36)}`,
      created: Math.floor(Date.now() / 1000),
      stream: body["stream"] === true,
    };
    const reply = route.build(call);
    if (reply.kind === "json") return done(new Response(reply.body, { headers: JSON_HEADERS }));
    const stream = mockFrameStream(reply.frames, {
      intervalMs: faults.chunkIntervalMs ?? options.chunkIntervalMs,
      cutAfter: faults.cutAfterChunks,
      signal: request.signal,
      onEnd: (end) => {
        if (end === "completed") stats.completed++;
        else if (end === "aborted") stats.aborted++;
      },
    });
    return new Response(stream, { headers: SSE_HEADERS });
  }

  function done(response: Response): Response {
    stats.completed++;
    return response;
  }

  /** Counts an abort and rejects as fetch does. */
  function aborted(request: Request): never {
    stats.aborted++;
    throw request.signal.reason ?? new DOMException("The operation was aborted.", "AbortError");
  }

  /** Awaits `work`; when the request was aborted meanwhile, counts it and rejects with the reason. */
  async function guard<T>(request: Request, work: Promise<T>): Promise<T> {
    let value: T;
    try {
      value = await work;
    } catch (error) {
      if (request.signal.aborted) aborted(request);
      throw error;
    }
    if (request.signal.aborted) aborted(request);
    return value;
  }

  async function control(request: Request, path: string): Promise<Response> {
    if (path === "/_mock/stats") {
      if (request.method !== "GET") return mockErrorResponse("openai", 405, "mock: use GET /_mock/stats");
      return Response.json(stats.snapshot());
    }
    if (path === "/_mock/reset") {
      if (request.method !== "POST") return mockErrorResponse("openai", 405, "mock: use POST /_mock/reset");
      stats.reset();
      return Response.json({ ok: true });
    }
    if (path === "/_mock/script") {
      if (request.method !== "POST") return mockErrorResponse("openai", 405, "mock: use POST /_mock/script");
      const next = parseObject(await request.arrayBuffer());
      if (next === undefined) return mockErrorResponse("openai", 400, "mock: the script must be a JSON object ({} clears it)");
      script = Object.keys(next).length === 0 ? undefined : (next as MockScript);
      scripted = 0;
      return Response.json({ ok: true });
    }
    return mockErrorResponse("openai", 404, `mock: no route for ${request.method} ${path}`);
  }

  return {
    fetch: handle,
    stats: () => stats.snapshot(),
    resetStats: () => stats.reset(),
  };
}

/** The path of an absolute URL, without parsing the whole URL. */
function pathOf(url: string): string {
  const start = url.indexOf("/", url.indexOf("//") + 2);
  if (start < 0) return "/";
  let end = url.length;
  const query = url.indexOf("?", start);
  if (query >= 0) end = query;
  const hash = url.indexOf("#", start);
  if (hash >= 0 && hash < end) end = hash;
  return url.slice(start, end);
}

function parseObject(bytes: ArrayBuffer): Record<string, unknown> | undefined {
  try {
    const value: unknown = JSON.parse(decoder.decode(bytes));
    return typeof value === "object" && value !== null && !Array.isArray(value) ? (value as Record<string, unknown>) : undefined;
  } catch {
    return undefined;
  }
}

/** Resolves after `ms`, or as soon as `signal` aborts. */
function abortableDelay(ms: number, signal: AbortSignal): Promise<void> {
  if (signal.aborted) return Promise.resolve();
  return new Promise((resolve) => {
    const onAbort = (): void => {
      clearTimeout(timer);
      resolve();
    };
    const timer = setTimeout(() => {
      signal.removeEventListener("abort", onAbort);
      resolve();
    }, ms);
    signal.addEventListener("abort", onAbort, { once: true });
  });
}
