import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { routedRelayFixture } from "../../support/mock-targets.ts";

/** Load balancing end to end: 1,000 calls through the OpenAI SDK over three mock targets. */

// a and b share the top group 3:1; c is a lower group, used only when the top one has no usable target.
const fixture = routedRelayFixture(["a", "b", "c"], (targets) => ({
  providers: targets.providers(),
  models: { spread: { targets: [{ provider: "a", model: "mock-gpt", weight: 3 }, { provider: "b", model: "mock-gpt", weight: 1 }, { provider: "c", model: "mock-gpt", priority: -1 }] } },
}), { latencyMs: 0, chunkIntervalMs: 0 });

describe("weighted spread inside the highest priority group", () => {
  test("1,000 calls split about 3:1 between a and b; the lower group gets none", async () => {
    const CALLS = 1000;
    let next = 0;
    // Eight callers in parallel, each sending its next call when the last one is answered.
    await Promise.all(Array.from({ length: 8 }, async () => {
      while (next < CALLS) {
        next++;
        const reply = await fixture.openai.chat.completions.create({ model: "spread", messages: [{ role: "user", content: "hi" }], max_tokens: 5 });
        assert.equal(reply.object, "chat.completion");
      }
    }));
    const [a, b, c] = [await fixture.targets.received("a"), await fixture.targets.received("b"), await fixture.targets.received("c")];
    assert.equal(a + b, CALLS);
    assert.equal(c, 0);
    // Binomial(1000, 0.75): standard deviation 13.7; 5 of them either side of 750.
    assert.ok(Math.abs(a - 750) <= 70, `a served ${a} of ${CALLS}, b ${b}`);
  });
});
