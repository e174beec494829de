import { currentRuntime } from "../../../src/runtime/current-runtime.ts";
import type { Server } from "../../../src/runtime/runtime.ts";
import type { Usage } from "../../../src/shared/usage.ts";
import { chatTurn, checkRequest, decideTurn, messagesTurn, refusal, responsesTurn, type ScriptedTurn, type ToolScript } from "./agent-answers.ts";

/** The keys the scripted providers accept (a client going direct uses them; Renio sends them). */
export const OPENAI_KEY = "sk-proj-scripted-openai-0001";
export const ANTHROPIC_KEY = "sk-ant-scripted-anthropic-0001";

/** How long a stream's connection stays open after its terminal event unless the client leaves first (a provider slow to end its body). */
const LINGER_MS = 300;

/** One request the scripted providers received. */
export interface Received {
  readonly method: string;
  readonly path: string;
  readonly query: string;
  readonly headers: Headers;
  readonly body: Record<string, unknown> | null;
  readonly bytes: number;
  readonly status: number;
  /** The usage reported, normalized as Renio reads it; null when none was (an error, a stream without usage). */
  readonly usage: Usage | null;
}

/** What a run scripts: the tools to call, and a fault for the first model calls. */
export interface RunScript {
  readonly tools: ToolScript;
  /** The first `count` model calls are answered `status` (529: Anthropic's overloaded, 500: OpenAI's server error). */
  readonly fault?: { readonly status: 500 | 529; readonly count: number };
}

/** One loopback server playing OpenAI (chat/completions, Responses, models) and Anthropic (messages, count_tokens, models). */
export interface AgentUpstream {
  readonly url: string;
  /** Starts a run: forgets what was received (ids count from 1 again), scripts what comes. */
  begin(script: RunScript): void;
  /** What this run received, in arrival order. */
  received(): readonly Received[];
  stop(): Promise<void>;
}

const encoder = new TextEncoder();

/** Starts the scripted providers on a loopback port. */
export async function startAgentUpstream(): Promise<AgentUpstream> {
  const runtime = await currentRuntime();
  let script: RunScript = { tools: [] };
  let received: Received[] = [];
  let modelCalls = 0;
  let sequence = 0;

  const answer = (path: string, headers: Headers, body: Record<string, unknown>, bytes: number): ScriptedTurn => {
    const anthropic = path.startsWith("/v1/messages");
    const authorized = anthropic ? headers.get("x-api-key") === ANTHROPIC_KEY || headers.get("authorization") === `Bearer ${ANTHROPIC_KEY}` : headers.get("authorization") === `Bearer ${OPENAI_KEY}`;
    if (!authorized) return refusal(path, 401, anthropic ? "invalid x-api-key" : "Incorrect API key provided.", null, "invalid_api_key");
    if (path === "/v1/messages/count_tokens") return { status: 200, json: { input_tokens: Math.max(8, Math.floor(bytes / 4)) }, usage: null };
    const fault = script.fault;
    if (fault !== undefined && modelCalls++ < fault.count) {
      return fault.status === 529 ? refusal(path, 529, "Overloaded") : refusal(path, 500, "The server had an error while processing your request. Sorry about that!");
    }
    const refused = checkRequest(path, body);
    if (refused !== undefined) return refused;
    const turn = decideTurn(path, body, script.tools);
    const id = `${anthropic ? "msg" : "chatcmpl"}_${String(++sequence).padStart(4, "0")}`;
    if (path === "/v1/responses") return responsesTurn(body, bytes, turn);
    if (path === "/v1/chat/completions") return chatTurn(body, bytes, turn, id);
    if (path === "/v1/messages") return messagesTurn(body, bytes, turn, id);
    return refusal(path, 404, `Unknown request URL: POST ${path}`);
  };

  /** The headers the real APIs send beside an answer (ids, rate limits, processing time). */
  const providerHeaders = (path: string, turn: ScriptedTurn): Record<string, string> => {
    const id = `req_${String(++sequence).padStart(6, "0")}`;
    const type = turn.sse !== undefined ? "text/event-stream; charset=utf-8" : "application/json";
    if (path.startsWith("/v1/messages")) {
      return { "content-type": type, "request-id": id, "anthropic-ratelimit-requests-remaining": "3999", ...(turn.status === 529 ? { "x-should-retry": "true" } : {}) };
    }
    return { "content-type": type, "x-request-id": id, "openai-processing-ms": "7", "openai-version": "2020-10-01", "x-ratelimit-remaining-requests": "9999", ...(turn.status >= 500 ? { "x-should-retry": "true" } : {}) };
  };

  /** Each provider lists its own models: Anthropic's (asked with `anthropic-version`), OpenAI's. */
  const models = (headers: Headers): Response => {
    if (headers.has("anthropic-version")) {
      const ids = ["claude-sonnet-4-5"];
      return Response.json({ data: ids.map((id) => ({ type: "model", id, display_name: id, created_at: "2025-09-29T00:00:00Z" })), has_more: false, first_id: ids[0], last_id: ids.at(-1) });
    }
    return Response.json({ object: "list", data: ["gpt-5", "gpt-4.1"].map((id) => ({ id, object: "model", created: 1_700_000_000, owned_by: "system" })) });
  };

  const server: Server = await runtime.serve({
    hostname: "127.0.0.1",
    port: 0,
    async fetch(request: Request): Promise<Response> {
      const url = new URL(request.url);
      const text = await request.text();
      const bytes = encoder.encode(text).byteLength;
      if (request.method === "GET" && url.pathname === "/v1/models") {
        received.push({ method: "GET", path: url.pathname, query: url.search, headers: request.headers, body: null, bytes, status: 200, usage: null });
        return models(request.headers);
      }
      let body: Record<string, unknown>;
      try {
        body = JSON.parse(text) as Record<string, unknown>;
      } catch {
        const turn = refusal(url.pathname, 400, "We could not parse the JSON body of your request.");
        return Response.json(turn.json, { status: turn.status });
      }
      const turn = answer(url.pathname, request.headers, body, bytes);
      received.push({ method: request.method, path: url.pathname, query: url.search, headers: request.headers, body, bytes, status: turn.status, usage: turn.usage });
      const headers = providerHeaders(url.pathname, turn);
      if (turn.sse === undefined) return new Response(JSON.stringify(turn.json), { status: turn.status, headers });
      const events = turn.sse;
      let linger: ReturnType<typeof setTimeout> | undefined;
      const stream = new ReadableStream<Uint8Array>({
        start(controller) {
          for (const event of events) controller.enqueue(encoder.encode(event));
          linger = setTimeout(() => controller.close(), LINGER_MS);
        },
        cancel() {
          clearTimeout(linger);
        },
      });
      return new Response(stream, { status: turn.status, headers });
    },
  });
  return {
    url: `http://127.0.0.1:${server.port}`,
    begin(next) {
      script = next;
      received = [];
      modelCalls = 0;
      sequence = 0;
    },
    received: () => received,
    stop: () => server.stop(),
  };
}
