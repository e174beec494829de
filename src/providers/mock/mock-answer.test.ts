import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { createMock } from "./mock-server.ts";
import { postJson } from "../../../test/support/mock-test-support.ts";

/** The text and output tokens of a chat answer from a mock answering `answer`. */
async function chat(answer: "sentence" | "fill", body: Record<string, unknown>): Promise<{ text: string; tokens: number }> {
  const mock = createMock({ latencyMs: 0, chunkIntervalMs: 0, chunks: 4, answer });
  const response = await mock.fetch(postJson("/v1/chat/completions", { model: "m", messages: [{ role: "user", content: "Hello" }], ...body }));
  assert.equal(response.status, 200);
  const result = (await response.json()) as { choices: { message: { content: string } }[]; usage: { completion_tokens: number } };
  return { text: result.choices[0]!.message.content, tokens: result.usage.completion_tokens };
}

describe("what the mock answers", () => {
  test("sentence: one short sentence whatever the output limit above it; a lower limit cuts it", async () => {
    const whole = await chat("sentence", { max_tokens: 16_384 });
    assert.match(whole.text, /^Hello from the Renio mock provider\. .*\.$/);
    assert.equal(whole.tokens, whole.text.split(" ").length);
    assert.ok(whole.tokens < 32);
    assert.deepEqual(await chat("sentence", {}), whole, "no limit: the same sentence");
    assert.deepEqual(await chat("sentence", { max_tokens: 3 }), { text: "Hello from the", tokens: 3 });
  });

  test("fill: exactly the output limit in filler words, for benchmarks", async () => {
    const filled = await chat("fill", { max_tokens: 100 });
    assert.equal(filled.tokens, 100);
    assert.equal(filled.text.trim().split(" ").length, 100);
  });
});
