import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import Anthropic from "@anthropic-ai/sdk";
import { costOf } from "../../../src/pricing/cost.ts";
import { BUILTIN_PRICES } from "../../../src/pricing/prices-builtin.ts";
import type { Store } from "../../../src/storage/store.ts";
import { geminiResponse, startGeminiUpstream, type GeminiUpstream } from "../../support/gemini-upstream.ts";
import { finishedEntries, openStore } from "../../support/relay-calls.ts";
import { startRelay, TEST_KEY, type RelayUnderTest } from "../../support/relay-harness.ts";

// Two translations chained: an Anthropic Messages caller reaches Gemini, which Renio serves in
// the OpenAI format (translate: true on the target); the books stay Gemini's usageMetadata.
const MODEL = "gemini-2.5-flash";
const PRICE = BUILTIN_PRICES[MODEL]!;
const USAGE = { promptTokenCount: 30, cachedContentTokenCount: 10, candidatesTokenCount: 6, totalTokenCount: 36 };
const BOOKED = { inputTokens: 20, cachedInputTokens: 10, outputTokens: 6 };

let upstream: GeminiUpstream;
let relay: RelayUnderTest;
let store: Store;
let client: Anthropic;

before(async () => {
  upstream = await startGeminiUpstream();
  relay = await startRelay(upstream.url, {
    providers: { google: { type: "gemini", baseUrl: upstream.url, apiKey: "AIza-test-chained-key-9f2d", region: "eu" } },
    models: { [MODEL]: { provider: "google", translate: true } },
    budgets: [{ id: "all", scope: "total", limit: 100 }],
  });
  store = await openStore(relay.config.storage);
  client = new Anthropic({ apiKey: TEST_KEY, baseURL: relay.url, maxRetries: 0, timeout: 5_000 });
});

after(async () => {
  await store.close();
  await relay.stop();
  await upstream.stop();
});

async function assertBooked(requestId: string | null): Promise<void> {
  assert.ok(requestId);
  const entry = (await finishedEntries(store, [requestId])).get(requestId)!;
  assert.equal(entry.outcome, "ok");
  assert.deepEqual([entry.inputTokens, entry.cachedInputTokens, entry.outputTokens], [BOOKED.inputTokens, BOOKED.cachedInputTokens, BOOKED.outputTokens]);
  assert.equal(entry.cost, costOf(BOOKED, PRICE));
  assert.equal(entry.region, "eu");
}

describe("Anthropic Messages caller → Gemini (Anthropic → OpenAI → generateContent)", () => {
  test("JSON: system and user reach Gemini; the answer and usage come back in Anthropic's shape and are charged", async () => {
    upstream.answer = { json: geminiResponse([{ text: "Salut" }], "STOP", USAGE) };
    const { data, response } = await client.messages
      .create({ model: MODEL, max_tokens: 50, system: "Be brief.", messages: [{ role: "user", content: "Say hi" }] })
      .withResponse();
    assert.deepEqual(data.content.map((block) => (block.type === "text" ? block.text : block.type)), ["Salut"]);
    assert.equal(data.stop_reason, "end_turn");
    assert.equal(data.usage.input_tokens, BOOKED.inputTokens);
    assert.equal(data.usage.cache_read_input_tokens, BOOKED.cachedInputTokens);
    assert.equal(data.usage.output_tokens, BOOKED.outputTokens);
    const sent = upstream.seen.at(-1)!;
    assert.match(sent.path, /gemini-2\.5-flash:generateContent$/);
    assert.deepEqual(sent.body["systemInstruction"], { parts: [{ text: "Be brief." }] });
    assert.equal((sent.body["generationConfig"] as Record<string, unknown>)["maxOutputTokens"], 50);
    await assertBooked(response.headers.get("x-request-id"));
  });

  test("stream: Gemini's SSE arrives as Anthropic events, text in order, usage at the end, charged", async () => {
    upstream.answer = {
      events: [
        geminiResponse([{ text: "Bon" }], undefined, { promptTokenCount: 30, candidatesTokenCount: 1, totalTokenCount: 31 }),
        geminiResponse([{ text: "jour" }], "STOP", USAGE),
      ],
    };
    const { data: stream, response } = await client.messages
      .create({ model: MODEL, max_tokens: 50, stream: true, messages: [{ role: "user", content: "Say hi" }] })
      .withResponse();
    let text = "";
    const types: string[] = [];
    let outputTokens = -1;
    for await (const event of stream) {
      types.push(event.type);
      if (event.type === "content_block_delta" && event.delta.type === "text_delta") text += event.delta.text;
      if (event.type === "message_delta") outputTokens = event.usage.output_tokens;
    }
    assert.equal(text, "Bonjour");
    assert.equal(types[0], "message_start");
    assert.equal(types.at(-1), "message_stop");
    assert.equal(outputTokens, BOOKED.outputTokens);
    assert.match(upstream.seen.at(-1)!.path, /streamGenerateContent$/);
    await assertBooked(response.headers.get("x-request-id"));
  });
});
