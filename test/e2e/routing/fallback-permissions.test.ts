import assert from "node:assert/strict";
import { describe, test } from "node:test";
import OpenAI from "openai";
import { FALLBACK_CHAIN_MODELS, routedRelayFixture } from "../../support/mock-targets.ts";
import { finishedEntries } from "../../support/relay-calls.ts";
import { TEST_KEY } from "../../support/relay-harness.ts";

/** A key's `models` permission holds for every model that serves its call: fallbacks and context fallbacks too. */

const PRIMARY_ONLY = "sk-renio-primary-only-key-0001";
const PRIMARY_AND_SECONDARY = "sk-renio-primary-secondary-0002";
const PRIMARY_AND_TERTIARY = "sk-renio-primary-tertiary-0003";
const SMALL_ONLY = "sk-renio-small-only-key-0004";

const fixture = routedRelayFixture(["a", "b", "c"], (targets) => ({
  providers: targets.providers(),
  models: FALLBACK_CHAIN_MODELS,
  keys: [
    { id: "test", secret: TEST_KEY, project: "tests" },
    { id: "primary-only", secret: PRIMARY_ONLY, models: ["primary"] },
    { id: "primary-secondary", secret: PRIMARY_AND_SECONDARY, models: ["primary", "secondary"] },
    { id: "primary-tertiary", secret: PRIMARY_AND_TERTIARY, models: ["primary", "tertiary"] },
    { id: "small-only", secret: SMALL_ONLY, models: ["small"] },
  ],
  routing: { cooldown: { failures: 1000 } },
}));

const clientFor = (apiKey: string) => new OpenAI({ apiKey, baseURL: `${fixture.opened.relay.url}/v1`, maxRetries: 0, timeout: 20_000 });

const ask = (apiKey: string, model: string) => clientFor(apiKey).chat.completions.create({ model, messages: [{ role: "user", content: "hi" }], max_tokens: 10 }).withResponse();

async function trailOf(requestId: string): Promise<string[]> {
  const entry = (await finishedEntries(fixture.opened.store, [requestId])).get(requestId)!;
  return (entry.attempts ?? []).map((a) => `${a.model}/${a.provider}:${a.errorCode ?? a.status}`);
}

describe("fallbacks obey the key's models", () => {
  test("a key allowed only the model it asks for gets that model's failure; its fallback is never called", async () => {
    await fixture.targets.script("a", { status: 503 });
    const error = await ask(PRIMARY_ONLY, "primary").catch((e: unknown) => e);
    assert.ok(error instanceof OpenAI.APIError, `expected the provider's error, got ${String(error)}`);
    assert.equal(error.status, 503, "the client gets the requested model's own failure");
    assert.equal(await fixture.targets.received("a"), 1);
    assert.equal(await fixture.targets.received("b"), 0, "the fallback the key may not call got nothing");
    assert.equal(await fixture.targets.received("c"), 0);
    assert.deepEqual(await trailOf(error.headers!.get("x-request-id")!), ["primary/a:upstream_503"]);
  });

  test("a key allowed the model and its fallback falls back", async () => {
    await fixture.targets.script("a", { status: 503 });
    const { data, response } = await ask(PRIMARY_AND_SECONDARY, "primary");
    assert.equal(data.model, "gpt-b");
    assert.deepEqual(await trailOf(response.headers.get("x-request-id")!), ["primary/a:upstream_503", "secondary/b:200"]);
  });

  test("a fallback the key may not call is passed over and the chain goes on to its own fallback the key may", async () => {
    await fixture.targets.script("a", { status: 503 });
    const { data, response } = await ask(PRIMARY_AND_TERTIARY, "primary");
    assert.equal(data.model, "gpt-c");
    assert.equal(await fixture.targets.received("b"), 0);
    assert.deepEqual(await trailOf(response.headers.get("x-request-id")!), ["primary/a:upstream_503", "tertiary/c:200"]);
  });

  test("a context fallback the key may not call: the provider's prompt-too-long answer reaches the client", async () => {
    await fixture.targets.script("a", { promptTooLong: true });
    const error = await ask(SMALL_ONLY, "small").catch((e: unknown) => e);
    assert.ok(error instanceof OpenAI.APIError, `expected the provider's error, got ${String(error)}`);
    assert.equal(error.status, 400);
    assert.equal(await fixture.targets.received("b"), 0, "the larger model the key may not call got nothing");
    // The unrestricted key still moves to the context fallback.
    const { data } = await ask(TEST_KEY, "small");
    assert.equal(data.model, "gpt-large");
  });
});
