import assert from "node:assert/strict";
import { describe, test } from "node:test";
import Anthropic from "@anthropic-ai/sdk";
import type { JournalEntry } from "../../../src/shared/journal-records.ts";
import { FALLBACK_CHAIN_MODELS, routedRelayFixture } from "../../support/mock-targets.ts";
import { finishedEntries } from "../../support/relay-calls.ts";
import { TEST_KEY } from "../../support/relay-harness.ts";

/** Fallback chains and the context-window fallback end to end, over three mock targets. */

const fixture = routedRelayFixture(["a", "b", "c"], (targets) => ({
  providers: targets.providers(),
  models: FALLBACK_CHAIN_MODELS,
  routing: { cooldown: { failures: 1000 } },
}));

async function chat(model: string): Promise<{ entry: JournalEntry; servedModel: string }> {
  const { data, response } = await fixture.openai.chat.completions.create({ model, messages: [{ role: "user", content: "hi" }], max_tokens: 10 }).withResponse();
  const id = response.headers.get("x-request-id")!;
  return { entry: (await finishedEntries(fixture.opened.store, [id])).get(id)!, servedModel: data.model };
}

const trail = (entry: JournalEntry) => (entry.attempts ?? []).map((a) => `${a.model}/${a.provider}/${a.upstreamModel}:${a.errorCode ?? a.status}`);

describe("fallbacks", () => {
  test("a model's targets exhausted, its fallbacks follow, then theirs: the chain ends where a target answers", async () => {
    await fixture.targets.script("a", { status: 503 });
    await fixture.targets.script("b", { status: 502 });
    const { entry, servedModel } = await chat("primary");
    assert.deepEqual(trail(entry), ["primary/a/gpt-a:upstream_503", "secondary/b/gpt-b:upstream_502", "tertiary/c/gpt-c:200"]);
    assert.equal(entry.model, "primary", "the entry keeps the model the client asked for");
    assert.equal(entry.provider, "c");
    assert.equal(entry.upstreamModel, "gpt-c");
    assert.equal(servedModel, "gpt-c", "the fallback's upstream model answered");
  });

  test("the first fallback answering ends the chain", async () => {
    await fixture.targets.script("a", { failFirst: 1, reset: true });
    const { entry } = await chat("primary");
    assert.deepEqual(trail(entry), ["primary/a/gpt-a:upstream_reset", "secondary/b/gpt-b:200"]);
    assert.equal(await fixture.targets.received("c"), 0);
  });

  test("a provider saying the prompt is too long moves the call to the context fallback", async () => {
    await fixture.targets.script("a", { promptTooLong: true });
    const { entry, servedModel } = await chat("small");
    assert.deepEqual(trail(entry), ["small/a/gpt-small:upstream_400", "large/b/gpt-large:200"]);
    assert.equal(servedModel, "gpt-large");
    assert.equal(entry.attempts![0]!.cost, null, "no price configured: nothing to charge");

    const anthropic = new Anthropic({ apiKey: TEST_KEY, baseURL: fixture.opened.relay.url, maxRetries: 0, timeout: 20_000 });
    const { data, response } = await anthropic.messages.create({ model: "small", max_tokens: 10, messages: [{ role: "user", content: "hi" }] }).withResponse();
    assert.equal(data.model, "gpt-large");
    const id = response.headers.get("x-request-id")!;
    assert.deepEqual(trail((await finishedEntries(fixture.opened.store, [id])).get(id)!), ["small/a/gpt-small:upstream_400", "large/b/gpt-large:200"]);
  });

  test("another 400 is the client's: no fallback", async () => {
    await fixture.targets.script("a", { status: 400 });
    const error = await fixture.openai.chat.completions.create({ model: "small", messages: [{ role: "user", content: "hi" }], max_tokens: 10 }).catch((e: unknown) => e);
    assert.equal((error as { status?: number }).status, 400);
    assert.equal(await fixture.targets.received("b"), 0);
  });
});
