import Anthropic from "@anthropic-ai/sdk";
import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import OpenAI from "openai";
import { startMockServer, startRelay, TEST_KEY, type MockServer, type RelayUnderTest } from "../../support/relay-harness.ts";
import { mockStats } from "../../support/relay-calls.ts";

const SPENT_KEY = "sk-renio-spent-budget-key-0005";

let mock: MockServer;
let relay: RelayUnderTest;

before(async () => {
  mock = await startMockServer();
  relay = await startRelay(mock.url, {
    keys: [
      { id: "test", secret: TEST_KEY, project: "tests" },
      { id: "spent", secret: SPENT_KEY, project: "spent" },
    ],
    // The built-in mock price: 8 USD per million output tokens, 16,384 at most. 0.1 USD holds a
    // short answer, not a reservation of the model's whole output (0.131 USD).
    budgets: [
      { id: "team", scope: { project: "tests" }, period: "total", limit: 0.1, mode: "strict" },
      { id: "spent", scope: { key: "spent" }, period: "total", limit: 0.000001, mode: "strict" },
    ],
    budget: { defaultOutputTokens: { "mock-claude": 15_000 } },
  });
});

after(async () => {
  await relay.stop();
  await mock.stop();
});

const openai = (apiKey = TEST_KEY) => new OpenAI({ apiKey, baseURL: `${relay.url}/v1`, maxRetries: 0 });
const anthropic = () => new Anthropic({ apiKey: TEST_KEY, baseURL: relay.url, maxRetries: 0 });
const hello = [{ role: "user" as const, content: "Hello" }];

/** The refusal's message, after checking it is a 429 `budget_exceeded` in the OpenAI envelope. */
function openaiRefusal(error: unknown): string {
  assert.ok(error instanceof OpenAI.RateLimitError, `a 429, got ${String(error)}`);
  assert.equal(error.code, "budget_exceeded");
  return error.message;
}

describe("a budget refusal names its reason and the fix, in the caller's envelope", () => {
  test("OpenAI chat without max_tokens: the model's maximum output is the reservation; max_tokens is the fix, and it works", async () => {
    const before = (await mockStats(mock.url)).received;
    await assert.rejects(openai().chat.completions.create({ model: "mock-gpt", messages: hello }), (error: unknown) => {
      const message = openaiRefusal(error);
      assert.match(message, /^429 Budget `team` cannot cover this request: it reserves 0\.13\d* USD, the most it may cost: /);
      assert.match(message, /up to 16,384 output tokens \(the maximum output of `mock-gpt`, as the request sets no limit\) at 8 USD per million/);
      assert.match(message, /plus up to \d+ input tokens; 0\.1 USD of its 0\.1 USD limit remains\./);
      assert.match(message, /set `max_tokens` in the request .*`budget\.defaultOutputTokens`/);
      return true;
    });
    assert.equal((await mockStats(mock.url)).received, before, "nothing reached the provider");
    const fixed = await openai().chat.completions.create({ model: "mock-gpt", messages: hello, max_tokens: 32 });
    assert.equal(fixed.object, "chat.completion");
  });

  test("OpenAI Responses: the fix names max_output_tokens", async () => {
    await assert.rejects(openai().responses.create({ model: "mock-gpt", input: "Hello" }), (error: unknown) => {
      const message = openaiRefusal(error);
      assert.match(message, /set `max_output_tokens` in the request/);
      assert.doesNotMatch(message, /`max_tokens`/);
      return true;
    });
  });

  test("the operator's budget.defaultOutputTokens is named when it made the reservation", async () => {
    await assert.rejects(openai().chat.completions.create({ model: "mock-claude", messages: hello }), (error: unknown) => {
      const message = openaiRefusal(error);
      assert.match(message, /up to 15,000 output tokens \(the operator's `budget\.defaultOutputTokens`, as the request sets no limit\)/);
      assert.match(message, /ask the operator to lower `budget\.defaultOutputTokens`/);
      return true;
    });
  });

  test("Anthropic messages: the request's own max_tokens is the reason, in the Anthropic envelope", async () => {
    await assert.rejects(anthropic().messages.create({ model: "mock-claude", max_tokens: 16_000, messages: hello }), (error: unknown) => {
      assert.ok(error instanceof Anthropic.RateLimitError, `a 429, got ${String(error)}`);
      const body = error.error as { type: string; error: { type: string; message: string } };
      assert.equal(body.type, "error");
      assert.equal(body.error.type, "rate_limit_error");
      assert.match(body.error.message, /up to 16,000 output tokens \(the request's `max_tokens`\) at 8 USD per million/);
      assert.match(body.error.message, /To fit, lower `max_tokens` \(16,000 now\)/);
      return true;
    });
    const fixed = await anthropic().messages.create({ model: "mock-claude", max_tokens: 32, messages: hello });
    assert.equal(fixed.type, "message");
  });

  test("a budget with no room left says so, and that a total budget does not reset", async () => {
    await assert.rejects(openai(SPENT_KEY).chat.completions.create({ model: "mock-gpt", messages: hello, max_tokens: 8 }), (error: unknown) => {
      const message = openaiRefusal(error);
      assert.match(message, /^429 Budget `spent` cannot cover this request: /);
      assert.match(message, /it does not reset; an operator can raise its limit/);
      return true;
    });
  });
});
