import { currentRuntime } from "../../src/runtime/current-runtime.ts";
import type { Server } from "../../src/runtime/runtime.ts";

/** An OpenAI-style upstream that bills as the real provider would. */
export interface ScriptedUpstream {
  readonly url: string;
  /** Every request body received, in order. */
  readonly bodies: Record<string, unknown>[];
  stop(): Promise<void>;
}

/**
 * Starts a chat-completions upstream on a loopback port that bills like OpenAI: each of the
 * `n` choices produces the request's output limit (`max_completion_tokens` or `max_tokens`),
 * or `unlimitedOutput` tokens when the request sets none; usage reports their sum. A body
 * referencing an `http(s)` URL bills `referencedInput` input tokens (what the fetched image or
 * file costs), else 10.
 */
export async function startScriptedUpstream(unlimitedOutput: number, referencedInput: number): Promise<ScriptedUpstream> {
  const runtime = await currentRuntime();
  const bodies: Record<string, unknown>[] = [];
  const server: Server = await runtime.serve({
    hostname: "127.0.0.1",
    port: 0,
    async fetch(request: Request): Promise<Response> {
      const text = await request.text();
      const body = JSON.parse(text) as Record<string, unknown>;
      const input = /"url":"https?:/.test(text) ? referencedInput : 10;
      bodies.push(body);
      const limit = body["max_completion_tokens"] ?? body["max_tokens"];
      const perChoice = typeof limit === "number" ? limit : unlimitedOutput;
      const n = typeof body["n"] === "number" ? body["n"] : 1;
      const choices = Array.from({ length: n }, (_, index) => ({ index, message: { role: "assistant", content: "ok" }, finish_reason: "length" }));
      const usage = { prompt_tokens: input, completion_tokens: perChoice * n, total_tokens: input + perChoice * n };
      const answer = { id: "chatcmpl-scripted", object: "chat.completion", created: 0, model: body["model"], choices, usage };
      return new Response(JSON.stringify(answer), { headers: { "content-type": "application/json" } });
    },
  });
  return { url: `http://127.0.0.1:${server.port}`, bodies, stop: () => server.stop() };
}
