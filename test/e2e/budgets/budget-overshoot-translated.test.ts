import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { BUILTIN_PRICES } from "../../../src/pricing/prices-builtin.ts";
import { reservationFor } from "../../../src/pricing/reservation.ts";
import { anthropicAnswering } from "../../support/anthropic-upstream.ts";
import { admittedOrRefused, assertNoOvershoot, type StrictCeiling } from "../../support/budget-ceiling.ts";
import { geminiAnswering, startGeminiUpstream } from "../../support/gemini-upstream.ts";
import { post } from "../../support/relay-calls.ts";
import { startAnsweringUpstream } from "../../support/scripted-upstream.ts";
import { withRelay } from "../../support/with-relay.ts";

// Zero overshoot through translation: concurrent calls under a strict budget covering about 20
// of them, through a translated target (OpenAI caller → Anthropic Messages) and a chained one
// (Anthropic caller → OpenAI → Gemini generateContent). Each scripted upstream bills the worst
// it may: the whole output limit the request it received allows, and holds every answer 50 ms
// so the reservations overlap.
const CALLS = 80;
const OUTPUT_LIMIT = 1000;
const HOLD_MS = 50;

const hold = <T>(value: T): Promise<T> => new Promise((resolve) => setTimeout(() => resolve(value), HOLD_MS));

/** The ceiling of a strict budget covering 20.5 calls of `body` to `model`, and the output bound each reserves. */
function ceilingFor(body: Record<string, unknown>, model: string): StrictCeiling & { outputTokens: number } {
  const requestBytes = new TextEncoder().encode(JSON.stringify(body)).byteLength;
  const maxOutputTokens = typeof body["max_tokens"] === "number" ? body["max_tokens"] : undefined;
  const reserved = reservationFor({ requestBytes, ...(maxOutputTokens === undefined ? {} : { maxOutputTokens }), price: BUILTIN_PRICES[model]!, model });
  return { budgetId: "tight", limit: Math.round(reserved.amount * 20.5 * 1e6) / 1e6, reservation: reserved.amount, outputTokens: reserved.outputTokens };
}

/** OpenAI callers of an Anthropic provider (translated): the provider bills the whole `max_tokens` it received. */
async function throughAnthropic(body: Record<string, unknown>): Promise<void> {
  const upstream = await startAnsweringUpstream(async (request) => hold(anthropicAnswering(({ body }) => ({ input_tokens: 10, output_tokens: body["max_tokens"] as number }))(request)));
  const ceiling = ceilingFor(body, body["model"] as string);
  try {
    await withRelay(upstream.url, {
      providers: { claude: { type: "anthropic", baseUrl: upstream.url, apiKey: "sk-ant-overshoot" } },
      models: { [body["model"] as string]: { provider: "claude", translate: true } },
      budgets: budgetOf(ceiling),
    }, async ({ relay, store }) => {
      const accepted = await fire(relay.url, "/v1/chat/completions", body, ceiling, () => upstream.bodies.length);
      for (const sent of upstream.bodies) assert.equal(sent["max_tokens"], ceiling.outputTokens, "the reserved bound reached the provider");
      await assertNoOvershoot(store, accepted, ceiling);
    });
  } finally {
    await upstream.stop();
  }
}

const budgetOf = (ceiling: StrictCeiling) => [{ id: ceiling.budgetId, scope: "total", period: "total", limit: ceiling.limit, mode: "strict" }];

/** Fires `CALLS` concurrent calls of `body` to `path`; only accepted calls may reach the provider. */
async function fire(relayUrl: string, path: string, body: Record<string, unknown>, ceiling: StrictCeiling, received: () => number): Promise<string[]> {
  const results = await Promise.all(Array.from({ length: CALLS }, async () => admittedOrRefused(await post(relayUrl, path, body), ceiling)));
  const accepted = results.filter((r) => r.accepted).map((r) => r.id);
  assert.ok(accepted.length < CALLS, "the budget refused some calls");
  assert.equal(received(), accepted.length, "only accepted calls reached the provider");
  return accepted;
}

for (const stream of [false, true]) {
  describe(`zero overshoot through translation (${stream ? "streams" : "JSON"})`, () => {
    test("OpenAI caller → Anthropic provider: the translated request's max_tokens is billed in full", async () => {
      await throughAnthropic({ model: "claude-sonnet-4-5", messages: [{ role: "user", content: "hello" }], max_tokens: OUTPUT_LIMIT, stream });
    });

    test("Anthropic caller → Gemini (chained through OpenAI): maxOutputTokens is billed in full", async () => {
      const model = "gemini-2.5-flash";
      const upstream = await startGeminiUpstream();
      const bill = geminiAnswering(({ body }) => {
        const limit = (body["generationConfig"] as { maxOutputTokens: number }).maxOutputTokens;
        return { promptTokenCount: 10, candidatesTokenCount: limit, totalTokenCount: 10 + limit };
      });
      upstream.answer = (seen) => hold(bill(seen));
      const body = { model, max_tokens: OUTPUT_LIMIT, messages: [{ role: "user", content: "hello" }], stream };
      const ceiling = ceilingFor(body, model);
      try {
        await withRelay(upstream.url, {
          providers: { google: { type: "gemini", baseUrl: upstream.url, apiKey: "AIza-overshoot-key", region: "eu" } },
          models: { [model]: { provider: "google", translate: true } },
          budgets: budgetOf(ceiling),
        }, async ({ relay, store }) => {
          const accepted = await fire(relay.url, "/v1/messages", body, ceiling, () => upstream.seen.length);
          for (const seen of upstream.seen) assert.equal((seen.body["generationConfig"] as { maxOutputTokens: number }).maxOutputTokens, OUTPUT_LIMIT);
          await assertNoOvershoot(store, accepted, ceiling);
        });
      } finally {
        await upstream.stop();
      }
    });
  });
}

test("zero overshoot through translation: an OpenAI caller setting no max_tokens → Anthropic is sent the bound Renio reserved", async () => {
  await throughAnthropic({ model: "claude-sonnet-4-5", messages: [{ role: "user", content: "hello" }] });
});
