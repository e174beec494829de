import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import OpenAI from "openai";
import { costOf } from "../../../src/pricing/cost.ts";
import { BUILTIN_PRICES } from "../../../src/pricing/prices-builtin.ts";
import type { JournalEntry } from "../../../src/shared/journal-records.ts";
import type { Store } from "../../../src/storage/store.ts";
import { GEMINI_USAGE, geminiResponse, startGeminiUpstream, type GeminiUpstream } from "../../support/gemini-upstream.ts";
import { PNG_DATA_URL } from "../../support/png-fixture.ts";
import { finishedEntries, openStore, post } from "../../support/relay-calls.ts";
import { readUntilCut } from "../../support/sse-bytes.ts";
import { startRelay, TEST_KEY, type RelayUnderTest } from "../../support/relay-harness.ts";

const GEMINI_KEY = "AIza-test-gemini-key-5c1e";
const MODEL = "gemini-2.5-flash";
const PRICE = BUILTIN_PRICES[MODEL]!;
const USAGE = GEMINI_USAGE;
const PNG = PNG_DATA_URL;

let upstream: GeminiUpstream;
let relay: RelayUnderTest;
let store: Store;
let client: OpenAI;

before(async () => {
  upstream = await startGeminiUpstream();
  relay = await startRelay(upstream.url, {
    providers: { google: { type: "gemini", baseUrl: upstream.url, apiKey: GEMINI_KEY, region: "eu" } },
    models: { [MODEL]: { provider: "google" }, "flash-alias": { provider: "google", model: MODEL } },
    budgets: [{ id: "all", scope: "total", limit: 100 }],
  });
  store = await openStore(relay.config.storage);
  client = new OpenAI({ apiKey: TEST_KEY, baseURL: `${relay.url}/v1`, maxRetries: 0, timeout: 5_000 });
});

after(async () => {
  await store.close();
  await relay.stop();
  await upstream.stop();
});

function lastSeen() {
  const seen = upstream.seen.at(-1);
  assert.ok(seen, "the upstream received a request");
  return seen;
}

async function entryOf(response: Response): Promise<JournalEntry> {
  const id = response.headers.get("x-request-id")!;
  return (await finishedEntries(store, [id])).get(id)!;
}

/** The journal's tokens and cost are Gemini's usageMetadata, priced at the model's list price. */
function assertBooks(entry: JournalEntry, usage: typeof USAGE): void {
  const expected = {
    inputTokens: usage.promptTokenCount - usage.cachedContentTokenCount,
    cachedInputTokens: usage.cachedContentTokenCount,
    outputTokens: usage.candidatesTokenCount + usage.thoughtsTokenCount,
  };
  assert.equal(entry.outcome, "ok");
  assert.deepEqual([entry.inputTokens, entry.cachedInputTokens, entry.outputTokens], [expected.inputTokens, expected.cachedInputTokens, expected.outputTokens]);
  assert.equal(entry.cost, costOf(expected, PRICE));
  assert.equal(entry.region, "eu");
}

describe("OpenAI chat/completions served by Gemini generateContent", () => {
  test("JSON: request translated, answer and usage in OpenAI's shape, journaled and charged from usageMetadata", async () => {
    upstream.answer = { json: geminiResponse([{ text: "Bonjour " }, { text: "Paris" }], "STOP", USAGE) };
    const { data, response } = await client.chat.completions
      .create({
        model: "flash-alias",
        messages: [{ role: "system", content: "Be brief." }, { role: "user", content: "Say hi" }],
        max_tokens: 64,
        temperature: 0.2,
        top_p: 0.9,
        stop: ["END"],
      })
      .withResponse();
    assert.equal(data.choices[0]!.message.content, "Bonjour Paris");
    assert.equal(data.choices[0]!.finish_reason, "stop");
    assert.equal(data.usage!.prompt_tokens, USAGE.promptTokenCount);
    assert.equal(data.usage!.prompt_tokens_details!.cached_tokens, USAGE.cachedContentTokenCount);
    assert.equal(data.usage!.completion_tokens, USAGE.candidatesTokenCount + USAGE.thoughtsTokenCount);
    const seen = lastSeen();
    assert.equal(seen.path, `/v1beta/models/${MODEL}:generateContent`);
    assert.equal(seen.headers.get("x-goog-api-key"), GEMINI_KEY);
    seen.headers.forEach((value, name) => assert.ok(!value.includes(TEST_KEY), `Renio key sent upstream in ${name}`));
    assert.deepEqual(seen.body, {
      contents: [{ role: "user", parts: [{ text: "Say hi" }] }],
      systemInstruction: { parts: [{ text: "Be brief." }] },
      generationConfig: { maxOutputTokens: 64, stopSequences: ["END"], temperature: 0.2, topP: 0.9 },
    });
    assertBooks(await entryOf(response), USAGE);
  });

  test("stream: text deltas, finish reason and a final usage chunk; unknown events skipped", async () => {
    upstream.answer = {
      events: [
        geminiResponse([{ text: "Hel" }], undefined, { promptTokenCount: 40, candidatesTokenCount: 1, totalTokenCount: 41 }),
        { someFutureEvent: { kind: "unknown" } },
        geminiResponse([{ text: "lo" }], "STOP", USAGE),
      ],
    };
    const { data: stream, response } = await client.chat.completions
      .create({ model: MODEL, messages: [{ role: "user", content: "hi" }], max_tokens: 32, stream: true, stream_options: { include_usage: true } })
      .withResponse();
    let text = "";
    const finishes: (string | null)[] = [];
    let usage: OpenAI.CompletionUsage | undefined;
    for await (const chunk of stream) {
      for (const choice of chunk.choices) {
        text += choice.delta.content ?? "";
        if (choice.finish_reason) finishes.push(choice.finish_reason);
      }
      if (chunk.usage) usage = chunk.usage;
    }
    assert.equal(text, "Hello");
    assert.deepEqual(finishes, ["stop"]);
    assert.equal(usage?.completion_tokens, USAGE.candidatesTokenCount + USAGE.thoughtsTokenCount);
    const seen = lastSeen();
    assert.equal(seen.path, `/v1beta/models/${MODEL}:streamGenerateContent`);
    assert.equal(seen.search, "?alt=sse");
    assertBooks(await entryOf(response), USAGE);
  });

  const weatherTool: OpenAI.ChatCompletionTool = {
    type: "function",
    function: { name: "get_weather", description: "Weather in a city", parameters: { type: "object", properties: { city: { type: "string" } }, required: ["city"] } },
  };

  test("tools JSON: functionDeclarations and toolConfig sent, functionCall returned as tool_calls", async () => {
    upstream.answer = { json: geminiResponse([{ functionCall: { name: "get_weather", args: { city: "Lyon" } } }], "STOP", USAGE) };
    const { data, response } = await client.chat.completions
      .create({ model: MODEL, messages: [{ role: "user", content: "Weather in Lyon?" }], tools: [weatherTool], tool_choice: { type: "function", function: { name: "get_weather" } } })
      .withResponse();
    const choice = data.choices[0]!;
    assert.equal(choice.finish_reason, "tool_calls");
    const call = choice.message.tool_calls![0]!;
    assert.equal(call.type, "function");
    assert.ok(call.type === "function");
    assert.equal(call.function.name, "get_weather");
    assert.deepEqual(JSON.parse(call.function.arguments), { city: "Lyon" });
    const body = lastSeen().body;
    assert.deepEqual(body["tools"], [{ functionDeclarations: [{ name: "get_weather", description: "Weather in a city", parametersJsonSchema: weatherTool.function.parameters }] }]);
    assert.deepEqual(body["toolConfig"], { functionCallingConfig: { mode: "ANY", allowedFunctionNames: ["get_weather"] } });
    assertBooks(await entryOf(response), USAGE);
  });

  test("tools: the tool's answer goes back as a functionResponse named after the call", async () => {
    upstream.answer = { json: geminiResponse([{ text: "Sunny in Lyon." }], "STOP", USAGE) };
    const answer = await client.chat.completions.create({
      model: MODEL,
      tools: [weatherTool],
      messages: [
        { role: "user", content: "Weather in Lyon?" },
        { role: "assistant", content: null, tool_calls: [{ id: "call_1", type: "function", function: { name: "get_weather", arguments: '{"city":"Lyon"}' } }] },
        { role: "tool", tool_call_id: "call_1", content: "sunny" },
      ],
    });
    assert.equal(answer.choices[0]!.message.content, "Sunny in Lyon.");
    assert.deepEqual(lastSeen().body["contents"], [
      { role: "user", parts: [{ text: "Weather in Lyon?" }] },
      { role: "model", parts: [{ functionCall: { name: "get_weather", args: { city: "Lyon" } } }] },
      { role: "user", parts: [{ functionResponse: { name: "get_weather", response: { content: "sunny" } } }] },
    ]);
  });

  test("tools stream: the function call arrives as a tool_calls delta with finish_reason tool_calls", async () => {
    upstream.answer = { events: [geminiResponse([{ functionCall: { name: "get_weather", args: { city: "Nice" } } }], "STOP", USAGE)] };
    const stream = await client.chat.completions.create({ model: MODEL, messages: [{ role: "user", content: "Nice?" }], tools: [weatherTool], stream: true });
    let name = "";
    let args = "";
    const finishes: string[] = [];
    for await (const chunk of stream) {
      for (const choice of chunk.choices) {
        for (const call of choice.delta.tool_calls ?? []) (name += call.function?.name ?? ""), (args += call.function?.arguments ?? "");
        if (choice.finish_reason) finishes.push(choice.finish_reason);
      }
    }
    assert.equal(name, "get_weather");
    assert.deepEqual(JSON.parse(args), { city: "Nice" });
    assert.deepEqual(finishes, ["tool_calls"]);
  });

  test("images: a data URL becomes inlineData; JSON schema output becomes responseMimeType + responseJsonSchema", async () => {
    upstream.answer = { json: geminiResponse([{ text: '{"colour":"red"}' }], "STOP", USAGE) };
    const schema = { type: "object", properties: { colour: { type: "string" } }, required: ["colour"], additionalProperties: false };
    const answer = await client.chat.completions.create({
      model: MODEL,
      messages: [{ role: "user", content: [{ type: "text", text: "Colour?" }, { type: "image_url", image_url: { url: PNG } }] }],
      response_format: { type: "json_schema", json_schema: { name: "colour", schema, strict: true } },
    });
    assert.deepEqual(JSON.parse(answer.choices[0]!.message.content!), { colour: "red" });
    const body = lastSeen().body;
    assert.deepEqual(body["contents"], [{ role: "user", parts: [{ text: "Colour?" }, { inlineData: { mimeType: "image/png", data: PNG.slice(PNG.indexOf(",") + 1) } }] }]);
    // Under a strict budget the relay bounds the output at the model's maximum; Gemini enforces it.
    assert.deepEqual(body["generationConfig"], { maxOutputTokens: PRICE.maxOutputTokens, responseMimeType: "application/json", responseJsonSchema: schema });
  });

  test("max tokens reached maps to finish_reason length", async () => {
    upstream.answer = { json: geminiResponse([{ text: "partial" }], "MAX_TOKENS", USAGE) };
    const answer = await client.chat.completions.create({ model: MODEL, messages: [{ role: "user", content: "long" }], max_tokens: 3 });
    assert.equal(answer.choices[0]!.finish_reason, "length");
  });
});

describe("errors in the OpenAI envelope", () => {
  test("a parameter Gemini has no equivalent for is a 400 naming it, and nothing is sent upstream", async () => {
    const before = upstream.seen.length;
    const error = await client.chat.completions
      .create({ model: MODEL, messages: [{ role: "user", content: "hi" }], logit_bias: { "50256": -100 } })
      .catch((e: unknown) => e);
    assert.ok(error instanceof OpenAI.BadRequestError);
    assert.equal(error.status, 400);
    assert.equal(error.param, "logit_bias");
    assert.match(error.message, /logit_bias/);
    assert.equal(upstream.seen.length, before);
  });

  test("an image URL that is not a data URL is a 400 naming the field", async () => {
    const error = await client.chat.completions
      .create({ model: MODEL, messages: [{ role: "user", content: [{ type: "image_url", image_url: { url: "https://example.com/a.png" } }] }] })
      .catch((e: unknown) => e);
    assert.ok(error instanceof OpenAI.BadRequestError);
    assert.equal(error.param, "messages[0].content[0].image_url.url");
  });

  test("Gemini's 429 RESOURCE_EXHAUSTED arrives as an OpenAI rate-limit error with Gemini's message", async () => {
    upstream.answer = { status: 429, json: { error: { code: 429, message: "Resource has been exhausted (e.g. check quota).", status: "RESOURCE_EXHAUSTED" } } };
    const error = await client.chat.completions.create({ model: MODEL, messages: [{ role: "user", content: "hi" }] }).catch((e: unknown) => e);
    assert.ok(error instanceof OpenAI.RateLimitError);
    assert.equal(error.code, "resource_exhausted");
    assert.match(error.message, /Resource has been exhausted/);
  });

  test("a Gemini error quoting the credential never shows it to the caller", async () => {
    upstream.answer = { status: 400, json: { error: { code: 400, message: `API key not valid: ${GEMINI_KEY}`, status: "INVALID_ARGUMENT" } } };
    const error = await client.chat.completions.create({ model: MODEL, messages: [{ role: "user", content: "hi" }] }).catch((e: unknown) => e);
    assert.ok(error instanceof OpenAI.BadRequestError);
    assert.doesNotMatch(error.message, new RegExp(GEMINI_KEY));
    assert.match(error.message, /API key not valid/);
  });

  test("a stream cut mid-event is a clean error for the caller, journaled as a cut and charged the reservation", async () => {
    upstream.answer = { raw: `data: ${JSON.stringify(geminiResponse([{ text: "Hi" }], undefined))}\r\n\r\ndata: {"candidates":[{"content":{"parts":[{"text":"th` };
    const response = await post(relay.url, "/v1/chat/completions", { model: MODEL, messages: [{ role: "user", content: "hi" }], max_tokens: 20, stream: true });
    assert.equal(response.status, 200);
    const { text: body, cut } = await readUntilCut(response);
    assert.ok(cut, "the cut reached the caller as an error");
    assert.doesNotMatch(body, /\[DONE\]/);
    const text = [...body.matchAll(/^data: (\{.*\})$/gm)].map((match) => (JSON.parse(match[1]!) as { choices: Array<{ delta: { content?: string } }> }).choices[0]?.delta.content ?? "").join("");
    assert.equal(text, "Hi");
    const entry = await entryOf(response);
    assert.deepEqual([entry.outcome, entry.errorCode], ["upstream_error", "upstream_stream_cut"]);
    assert.equal(entry.cost, entry.reservedCost);
  });
});
