import Anthropic from "@anthropic-ai/sdk";
import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import OpenAI from "openai";
import { anthropicAnswer } from "../../support/anthropic-upstream.ts";
import { openAiAnswer } from "../../support/openai-upstream.ts";
import { TEST_KEY } from "../../support/relay-harness.ts";
import { startAnsweringUpstream, type ScriptedUpstream } from "../../support/scripted-upstream.ts";
import { openRelay, type RelayWithStore } from "../../support/with-relay.ts";

let upstream: ScriptedUpstream;
let opened: RelayWithStore;

before(async () => {
  upstream = await startAnsweringUpstream((request) => (request.path === "/v1/messages" ? anthropicAnswer(request) : openAiAnswer(request)));
  opened = await openRelay(upstream.url, {
    providers: {
      oai: { type: "openai", baseUrl: `${upstream.url}/v1`, apiKey: "sk-openai-upstream" },
      ant: { type: "anthropic", baseUrl: upstream.url, apiKey: "sk-ant-upstream" },
    },
    models: {
      "gpt-4o": { provider: "oai" },
      "gpt-4.1": { provider: "oai", translate: true },
      "claude-sonnet-4-5": { provider: "ant" },
      "claude-haiku-4-5": { provider: "ant", translate: true },
    },
  });
});
after(async () => {
  await opened.stop();
  await upstream.stop();
});

describe("GET /v1/models lists what the caller's routes serve", () => {
  test("Anthropic shape: only the models /v1/messages serves (Anthropic targets, OpenAI ones opted into translation), and each of them answers there", async () => {
    const anthropic = new Anthropic({ apiKey: TEST_KEY, baseURL: opened.relay.url, maxRetries: 0, timeout: 5_000 });
    const ids = (await anthropic.models.list()).data.map((model) => model.id).sort();
    assert.deepEqual(ids, ["claude-haiku-4-5", "claude-sonnet-4-5", "gpt-4.1"]);
    for (const model of ids) {
      const message = await anthropic.messages.create({ model, max_tokens: 16, messages: [{ role: "user", content: "hi" }] });
      assert.equal(message.type, "message", model);
    }
  });

  test("OpenAI shape: only the models the OpenAI routes serve", async () => {
    const openai = new OpenAI({ apiKey: TEST_KEY, baseURL: `${opened.relay.url}/v1`, maxRetries: 0, timeout: 5_000 });
    const ids: string[] = [];
    for await (const model of openai.models.list()) ids.push(model.id);
    assert.deepEqual(ids.sort(), ["claude-haiku-4-5", "gpt-4.1", "gpt-4o"]);
  });
});
