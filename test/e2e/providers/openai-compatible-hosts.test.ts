import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import OpenAI from "openai";
import { costOf } from "../../../src/pricing/cost.ts";
import { createPriceBook } from "../../../src/pricing/price-book.ts";
import type { Store } from "../../../src/storage/store.ts";
import { TEST_KEY, type RelayUnderTest } from "../../support/relay-harness.ts";
import { finishedEntries } from "../../support/relay-calls.ts";
import { startAnsweringUpstream, type ScriptedUpstream } from "../../support/scripted-upstream.ts";
import { openRelay } from "../../support/with-relay.ts";

const PROMPT_TOKENS = 11;
/** A local model priced in the config, as vLLM and Ollama models are not in the built-in list. */
const LOCAL_PRICES = { "llama3.2": { input: 0.01, output: 0.02 } };

/** Each host as documented in README "Providers and hosts", at a loopback path of the scripted upstream. */
const HOSTS = [
  { id: "mistral", path: "/mistral/v1", apiKey: "mistral-key-41", region: "eu", model: "mistral-small-latest" },
  { id: "groq", path: "/groq/openai/v1", apiKey: "groq-key-42", region: "us", model: "llama-3.1-8b-instant" },
  { id: "deepseek", path: "/deepseek/v1", apiKey: "deepseek-key-43", region: "asia", model: "deepseek-chat" },
  { id: "vllm", path: "/vllm/v1", region: "local", model: "llama3.2" },
  { id: "ollama", path: "/ollama/v1", region: "local", model: "llama3.2" },
] as const;

let upstream: ScriptedUpstream;
const paths: string[] = [];
let relay: RelayUnderTest;
let store: Store;
let stopRelay: () => Promise<void>;

before(async () => {
  // An OpenAI-compatible upstream: chat.completion with OpenAI usage, output = the request's max_tokens.
  upstream = await startAnsweringUpstream(({ path, body }) => {
    paths.push(path);
    const output = Number(body["max_tokens"]);
    const usage = { prompt_tokens: PROMPT_TOKENS, completion_tokens: output, total_tokens: PROMPT_TOKENS + output };
    const choices = [{ index: 0, message: { role: "assistant", content: "ok" }, finish_reason: "length" }];
    return { json: { id: "chatcmpl-compat", object: "chat.completion", created: 0, model: body["model"], choices, usage } };
  });
  const providers = Object.fromEntries(HOSTS.map((host) => [host.id, { type: "openai", baseUrl: upstream.url + host.path, region: host.region, ...("apiKey" in host ? { apiKey: host.apiKey } : {}) }]));
  const models = Object.fromEntries(HOSTS.map((host) => [`${host.id}-chat`, { provider: host.id, model: host.model }]));
  ({ relay, store, stop: stopRelay } = await openRelay(upstream.url, { providers, models, prices: LOCAL_PRICES }));
});

after(async () => {
  await stopRelay();
  await upstream.stop();
});

describe("OpenAI-compatible hosts through the official openai client", () => {
  const prices = createPriceBook(new Map(Object.entries(LOCAL_PRICES)));
  HOSTS.forEach((host, index) => {
    test(`${host.id}: ${"apiKey" in host ? "its key as Bearer" : "no key sent"}, usage and cost journaled at ${host.model}'s price`, async () => {
      const client = new OpenAI({ apiKey: TEST_KEY, baseURL: `${relay.url}/v1`, maxRetries: 0, timeout: 5_000 });
      const maxTokens = 5 + index;
      const { data, response } = await client.chat.completions.create({ model: `${host.id}-chat`, messages: [{ role: "user", content: "hi" }], max_tokens: maxTokens }).withResponse();
      assert.equal(data.usage?.completion_tokens, maxTokens);
      assert.equal(paths.at(-1), `${host.path}/chat/completions`);
      assert.equal(upstream.headers.at(-1)?.get("authorization"), "apiKey" in host ? `Bearer ${host.apiKey}` : null);
      assert.equal(upstream.bodies.at(-1)?.["model"], host.model);
      const id = response.headers.get("x-request-id")!;
      const entry = (await finishedEntries(store, [id])).get(id)!;
      assert.deepEqual([entry.outcome, entry.provider, entry.region, entry.inputTokens, entry.outputTokens], ["ok", host.id, host.region, PROMPT_TOKENS, maxTokens]);
      const price = prices.priceOf(host.model);
      assert.ok(price, `${host.model} is priced`);
      assert.equal(entry.cost, costOf({ inputTokens: PROMPT_TOKENS, cachedInputTokens: 0, outputTokens: maxTokens }, price));
      assert.ok(entry.cost! > 0);
    });
  });
});
