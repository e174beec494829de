import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import { costOf } from "../../../src/pricing/cost.ts";
import { BUILTIN_PRICES } from "../../../src/pricing/prices-builtin.ts";
import type { JournalEntry } from "../../../src/shared/journal-records.ts";
import { anthropicEvents, join, openAiEvents } from "../../support/usage-sse-fixtures.ts";
import { createFakeProviderRelay, type FakeProviderRelay } from "../../support/fake-provider-relay.ts";

const PRICE = BUILTIN_PRICES["mock"]!;
const encoder = new TextEncoder();
let fake: FakeProviderRelay;

before(async () => {
  fake = await createFakeProviderRelay();
});

after(async () => {
  await fake.close();
});

/** An SSE response that sends `events`, then fails (a cut) or ends cleanly. */
function sse(events: string[], cut: boolean): Response {
  let sent = false;
  // The cut comes on the next read: erroring a stream discards what is still queued.
  const body = new ReadableStream<Uint8Array>({
    pull(controller) {
      if (!sent) (sent = true), controller.enqueue(encoder.encode(join(events, "\n")));
      else if (cut) controller.error(new TypeError("connection reset by peer"));
      else controller.close();
    },
  }, { highWaterMark: 0 });
  return new Response(body, { headers: { "content-type": "text/event-stream" } });
}

/** Relays one streamed call answered by `events`, reads it to its end or cut (`clientSeesCut`: the cut reaches the client), returns its entry. */
async function streamed(path: string, model: string, events: string[], cut: boolean, clientSeesCut = cut): Promise<JournalEntry> {
  fake.answer = () => sse(events, cut);
  const response = await fake.call(fake.relay(), path, { model, messages: [{ role: "user", content: "hi" }], max_tokens: 50, stream: true, stream_options: { include_usage: true } });
  assert.equal(response.status, 200);
  if (clientSeesCut) await assert.rejects(response.arrayBuffer());
  else await response.arrayBuffer();
  return await fake.newest();
}

const fromTokens = (e: JournalEntry) => costOf({ inputTokens: e.inputTokens ?? 0, cachedInputTokens: e.cachedInputTokens ?? 0, outputTokens: e.outputTokens ?? 0 }, PRICE);

describe("a stream that did not end cleanly is settled from usage only if the provider's final usage was seen", () => {
  const anthropic = anthropicEvents(); // message_delta is event 6 of 7
  const openai = openAiEvents(); // the usage chunk is event 5 of 6

  test("Anthropic cut after message_start only: usage journaled, charged at the reservation", async () => {
    const entry = await streamed("/v1/messages", "mock-claude", anthropic.slice(0, 4), true);
    assert.deepEqual([entry.outcome, entry.errorCode], ["upstream_error", "upstream_stream_cut"]);
    assert.deepEqual([entry.inputTokens, entry.cachedInputTokens, entry.outputTokens], [30, 100, 1]);
    assert.ok(fromTokens(entry) < entry.reservedCost!);
    assert.equal(entry.cost, entry.reservedCost);
  });

  test("Anthropic cut after message_delta (before message_stop): settled from the final usage", async () => {
    const entry = await streamed("/v1/messages", "mock-claude", anthropic.slice(0, 6), true);
    assert.equal(entry.errorCode, "upstream_stream_cut");
    assert.deepEqual([entry.inputTokens, entry.cachedInputTokens, entry.outputTokens], [30, 100, 12]);
    assert.equal(entry.cost, fromTokens(entry));
    assert.ok(entry.cost! < entry.reservedCost!);
  });

  test("OpenAI cut before the usage chunk: charged at the reservation", async () => {
    const entry = await streamed("/v1/chat/completions", "mock-gpt", openai.slice(0, 4), true);
    assert.equal(entry.errorCode, "upstream_stream_cut");
    assert.equal(entry.outputTokens, null);
    assert.equal(entry.cost, entry.reservedCost);
  });

  test("OpenAI cut after the usage chunk (before [DONE]): settled from it", async () => {
    const entry = await streamed("/v1/chat/completions", "mock-gpt", openai.slice(0, 5), true);
    assert.equal(entry.errorCode, "upstream_stream_cut");
    assert.deepEqual([entry.inputTokens, entry.cachedInputTokens, entry.outputTokens], [16, 4, 8]);
    assert.equal(entry.cost, fromTokens(entry));
    assert.ok(entry.cost! < entry.reservedCost!);
  });

  test("Responses API cut after response.completed (its terminal event): the client's stream ends cleanly, ok, settled from it; cut before: at the reservation", async () => {
    const completed = 'event: response.completed\ndata: {"type":"response.completed","response":{"usage":{"input_tokens":9,"output_tokens":5}}}';
    const delta = 'event: response.output_text.delta\ndata: {"type":"response.output_text.delta","delta":"x"}';
    const after = await streamed("/v1/responses", "mock-gpt", [delta, completed], true, false);
    assert.deepEqual([after.outcome, after.inputTokens, after.outputTokens], ["ok", 9, 5]);
    assert.equal(after.cost, fromTokens(after));
    const before = await streamed("/v1/responses", "mock-gpt", [delta], true);
    assert.equal(before.outcome, "upstream_error");
    assert.equal(before.cost, before.reservedCost);
  });

  test("a clean end settles from the usage seen", async () => {
    const entry = await streamed("/v1/messages", "mock-claude", anthropic, false);
    assert.deepEqual([entry.outcome, entry.outputTokens], ["ok", 12]);
    assert.equal(entry.cost, fromTokens(entry));
  });

  test("nothing stays reserved", async () => {
    const [usage] = await fake.store.budgetUsage([{ budgetId: "all", period: "total" }]);
    assert.equal(usage!.reserved, 0);
  });
});
