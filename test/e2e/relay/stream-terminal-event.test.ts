import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import { costOf } from "../../../src/pricing/cost.ts";
import type { Price } from "../../../src/pricing/price-book.ts";
import type { JournalEntry } from "../../../src/shared/journal-records.ts";
import { anthropicAnswer } from "../../support/anthropic-upstream.ts";
import { startCuttingUpstream, type CuttingUpstream } from "../../support/cutting-upstream.ts";
import { openAiAnswer } from "../../support/openai-upstream.ts";
import { finishedEntries, post } from "../../support/relay-calls.ts";
import { responsesAnswer } from "../../support/responses-upstream.ts";
import type { ScriptedAnswer } from "../../support/scripted-upstream.ts";
import { eventually } from "../../support/sse-bytes.ts";
import { openRelay, type RelayWithStore } from "../../support/with-relay.ts";

/**
 * A stream whose terminal event reached the client is journaled `ok`, whichever connection
 * closes first afterwards; a client gone before it is `client_aborted`. Every wire, and both
 * translations. The upstreams send a whole stream and then hold the connection open (or cut
 * it), so the client closing at the terminal event always comes first, as Codex and the
 * OpenAI SDK do when a provider is slow to end its body.
 */

const PRICE: Price = { input: 2, cachedInput: 1, output: 8 };
const sse = (answer: ScriptedAnswer): string[] => ("sse" in answer ? answer.sse.map((event) => `${event}\n\n`) : []);
const request = { path: "", body: { stream: true, model: "m" }, bytes: 0 };
const CHAT = sse(openAiAnswer(request));
const RESPONSES = sse(responsesAnswer(request));
const ANTHROPIC = sse(anthropicAnswer(request));

/** The provider's usage as Renio reads it: OpenAI's (40 of 120 prompt tokens cached), Responses', Anthropic's (with cache writes). */
const OPENAI = { inputTokens: 80, cachedInputTokens: 40, outputTokens: 9 };
const ANTHROPIC_USAGE = { inputTokens: 71, cachedInputTokens: 100, outputTokens: 7, cacheWrite5mTokens: 30, cacheWrite1hTokens: 20 };

/** Each wire (and translation): the route, the terminal marker, the upstream that serves it, and the usage the provider reported. */
const CASES = [
  { name: "chat/completions", model: "chat", path: "/v1/chat/completions", terminal: "data: [DONE]", usage: OPENAI },
  { name: "Responses", model: "responses", path: "/v1/responses", terminal: "event: response.completed", usage: { inputTokens: 120, cachedInputTokens: 30, outputTokens: 20 } },
  { name: "Anthropic messages", model: "claude", path: "/v1/messages", terminal: "event: message_stop", usage: ANTHROPIC_USAGE },
  { name: "OpenAI caller → Anthropic provider", model: "claude-for-openai", path: "/v1/chat/completions", terminal: "data: [DONE]", usage: ANTHROPIC_USAGE },
  { name: "Anthropic caller → OpenAI provider", model: "gpt-for-anthropic", path: "/v1/messages", terminal: "event: message_stop", usage: OPENAI },
] as const;

const bodyOf = (path: string, model: string): Record<string, unknown> =>
  path === "/v1/responses" ? { model, input: "hi", stream: true } : { model, max_tokens: 50, messages: [{ role: "user", content: "hi" }], stream: true };

const STREAMS = { chat: CHAT, responses: RESPONSES, anthropic: ANTHROPIC };
type Stream = keyof typeof STREAMS;
/** Where each model's provider streams from. */
const SOURCE: Record<string, Stream> = { chat: "chat", responses: "responses", claude: "anthropic", "claude-for-openai": "anthropic", "gpt-for-anthropic": "chat" };

/** Upstreams sending every event and then holding the connection; and ones sending only the first two events (never the terminal one), then holding. */
let whole: Record<Stream, CuttingUpstream>;
let partial: Record<Stream, CuttingUpstream>;
let cut: CuttingUpstream;
let opened: RelayWithStore;

before(async () => {
  const start = async (take: (events: string[]) => string[]) =>
    Object.fromEntries(await Promise.all(Object.entries(STREAMS).map(async ([name, events]) => [name, await startCuttingUpstream(take(events), "hold")]))) as Record<Stream, CuttingUpstream>;
  whole = await start((events) => events);
  partial = await start((events) => events.slice(0, 2));
  cut = await startCuttingUpstream(ANTHROPIC, "cut");
  const providers: Record<string, unknown> = { cutting: { type: "anthropic", baseUrl: cut.url } };
  const models: Record<string, unknown> = { "claude-cut": { provider: "cutting" } };
  for (const [set, upstreams] of [["", whole], ["early-", partial]] as const) {
    for (const stream of Object.keys(STREAMS) as Stream[]) {
      const url = upstreams[stream].url;
      providers[`${set}${stream}`] = stream === "anthropic" ? { type: "anthropic", baseUrl: url } : { type: "openai", baseUrl: `${url}/v1` };
    }
    for (const [model, stream] of Object.entries(SOURCE)) models[`${set}${model}`] = { provider: `${set}${stream}`, translate: model.includes("-for-") };
  }
  opened = await openRelay(cut.url, {
    providers,
    models,
    prices: Object.fromEntries(Object.keys(models).map((model) => [model, PRICE])),
    budgets: [{ id: "all", scope: "total", period: "total", limit: 100 }],
  });
});
after(async () => {
  await opened.stop();
  for (const upstream of [...Object.values(whole), ...Object.values(partial), cut]) await upstream.stop();
});

/** Streams a call and reads it until `marker` has arrived, then cancels (`marker` undefined: reads to the end). Returns the text read and the entry id. */
async function readUntil(path: string, body: Record<string, unknown>, marker: string | undefined): Promise<{ text: string; id: string }> {
  const response = await post(opened.relay.url, path, body);
  if (response.status !== 200) assert.fail(`${path} ${String(body["model"])}: ${response.status} ${await response.text()}`);
  const id = response.headers.get("x-request-id")!;
  const reader = response.body!.getReader();
  const decoder = new TextDecoder();
  let text = "";
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    text += decoder.decode(value, { stream: true });
    if (marker !== undefined && text.includes(marker)) {
      await reader.cancel();
      break;
    }
  }
  return { text, id };
}

async function entryOf(id: string): Promise<JournalEntry> {
  return (await finishedEntries(opened.store, [id])).get(id)!;
}

describe("journal truth for streams", () => {
  for (const c of CASES) {
    test(`${c.name}: the client closes right after the terminal event → ok, charged the provider's usage`, async () => {
      const { text, id } = await readUntil(c.path, bodyOf(c.path, c.model), c.terminal);
      assert.ok(text.includes(c.terminal));
      const entry = await entryOf(id);
      assert.deepEqual([entry.outcome, entry.status, entry.errorCode], ["ok", 200, null]);
      assert.deepEqual([entry.inputTokens, entry.cachedInputTokens, entry.outputTokens], [c.usage.inputTokens, c.usage.cachedInputTokens, c.usage.outputTokens]);
      assert.equal(entry.cost, costOf(c.usage, PRICE));
      assert.equal(entry.costEstimated, false);
    });

    test(`${c.name}: a client gone before the terminal event → client_aborted`, async () => {
      // The provider sent two events and nothing more yet; the client leaves once it has the first bytes.
      const { text, id } = await readUntil(c.path, bodyOf(c.path, `early-${c.model}`), "");
      assert.ok(text.length > 0 && !text.includes(c.terminal));
      const entry = await entryOf(id);
      assert.deepEqual([entry.outcome, entry.errorCode], ["client_aborted", "client_aborted"]);
    });
  }

  test("the provider's connection cut after the terminal event: ok, and the client's stream ends cleanly", async () => {
    const { text, id } = await readUntil("/v1/messages", bodyOf("/v1/messages", "claude-cut"), undefined);
    assert.ok(text.endsWith('event: message_stop\ndata: {"type":"message_stop"}\n\n'));
    const entry = await entryOf(id);
    assert.deepEqual([entry.outcome, entry.errorCode, entry.outputTokens], ["ok", null, 7]);
  });

  test("every held upstream connection was closed once its client left", async () => {
    assert.ok(await eventually(() => [...Object.values(whole), ...Object.values(partial)].every((upstream) => upstream.open === 0)), "the upstream reads were cancelled");
  });
});
