import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import { costOf } from "../src/budget/cost.ts";
import { ANTHROPIC_CALLER, OPENAI_CALLER } from "./support/matrix-callers.ts";
import { FAMILY_NAMES, startFamilies, TOOL, type Content, type Families, type Mode } from "./support/matrix-providers.ts";
import { finishedEntries } from "./support/relay-calls.ts";
import { openRelay, type RelayWithStore } from "./support/with-relay.ts";

// The translation matrix: caller format (the official OpenAI and Anthropic SDKs) × provider
// family (OpenAI, Anthropic, Gemini, Bedrock, Azure, each a scripted upstream in its own wire
// format) × JSON / stream × plain text / tools / images, through one relay whose targets all
// take `translate: true`. A caller of the provider's own format passes through untranslated;
// Anthropic callers of Gemini, Bedrock and Azure go through two translations.
const MODES: readonly Mode[] = ["json", "stream"];
const CONTENTS: readonly Content[] = ["plain", "tools", "images"];

let families: Families;
let opened: RelayWithStore;

before(async () => {
  families = await startFamilies();
  // Every provider is configured by the families (the harness's default mock URL is unused).
  opened = await openRelay(families.get("OpenAI").path("json"), {
    ...families.config,
    budgets: [{ id: "strict", scope: "total", period: "total", limit: 100, mode: "strict" }],
  });
});

after(async () => {
  await opened.stop();
  await families.stop();
});

for (const caller of [OPENAI_CALLER, ANTHROPIC_CALLER]) {
  describe(`${caller.name} caller`, () => {
    for (const name of FAMILY_NAMES) {
      for (const mode of MODES) {
        for (const content of CONTENTS) {
          test(`→ ${name} · ${mode} · ${content}`, async () => {
            const family = families.get(name);
            const sentBefore = family.received().length;
            const got = await caller.call(opened.relay.url, family.model, content, mode);

            const sent = family.received().slice(sentBefore);
            assert.equal(sent.length, 1, "one request reached the provider");
            assert.equal(sent[0]!.path, family.path(mode), "in the provider's own API");
            if (content === "tools") {
              assert.equal(got.tool?.name, TOOL.name);
              assert.deepEqual(got.tool.input, JSON.parse(family.toolArgs));
              if (mode === "stream") assert.equal(got.tool.streamedArgs, family.toolArgs, "the argument fragments join to exactly the provider's JSON");
              assert.equal(got.finish, caller.finish.tools);
            } else {
              assert.equal(got.text, family.text(content));
              assert.equal(got.tool, undefined);
              assert.equal(got.finish, caller.finish.text);
            }
            if (content === "images") assert.deepEqual(family.imageOf(sent[0]!.body), family.image, "the image reached the provider in its shape");
            assert.deepEqual(got.usage, caller.usageOf(family.booked), "usage in the caller's fields");

            const entry = (await finishedEntries(opened.store, [got.requestId])).get(got.requestId)!;
            assert.equal(entry.outcome, "ok");
            assert.deepEqual([entry.inputTokens, entry.cachedInputTokens, entry.outputTokens], [family.booked.inputTokens, family.booked.cachedInputTokens, family.booked.outputTokens]);
            assert.equal(entry.cost, costOf(family.booked, family.price), "charged what the provider's usage prices to");
            assert.ok(entry.cost! <= entry.reservedCost!, "within its reservation");
          });
        }
      }
    }
  });
}
